import AllocationCounter
import Foundation
@testable import NuiSDK
import XCTest

/// `nui_update_audio_data` and `nui_push_reference_data` run on the app's audio threads: no allocation while a
/// dialog runs (with the debug WAVs on), with no dialog, and in pull mode.
final class RealTimeSafetyTests: XCTestCase {
    func allocations(_ harness: NuiHarness, pushes: Int) -> (Int64, [NuiResultCode: Int]) {
        let frame = [Int16](repeating: 300, count: 160).withUnsafeBytes { Array($0) }.map { CChar(bitPattern: $0) }
        var codes: [NuiResultCode] = []
        codes.reserveCapacity(pushes * 2)
        afe_allocation_counter_start()
        frame.withUnsafeBufferPointer { bytes in
            for _ in 0..<pushes {
                codes.append(harness.nui.nui_push_reference_data(bytes.baseAddress, Len: 320, FirstPack: false))
                codes.append(harness.nui.nui_update_audio_data(bytes.baseAddress, Len: 320, FirstPack: false))
                usleep(1000) // 10 ms of audio every ms: the pipeline keeps up
            }
        }
        let count = afe_allocation_counter_stop()
        return (count, codes.reduce(into: [:]) { $0[$1, default: 0] += 1 })
    }

    func testAudioPushesAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let server = try ReferenceServer(["--fault", "no-task-started"])
        defer { server.stop() }
        let harness = try NuiHarness()
        defer { harness.close() }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(), ["debug_path": harness.debugPath, "save_wav": true]),
                                          saveLog: true), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        _ = allocations(harness, pushes: 50) // warm-up (the runtime allocates metadata on first use)
        let (idle, idleCodes) = allocations(harness, pushes: 500)
        XCTAssertEqual(idle, 0, "no dialog: \(idleCodes)")
        XCTAssertEqual(idleCodes, [.NUI_ERR_NO_DIALOG: 1000])
        XCTAssertEqual(harness.start(), .SUCCESS)
        _ = allocations(harness, pushes: 50)
        let (running, runningCodes) = allocations(harness, pushes: 1000)
        XCTAssertEqual(running, 0, "dialog running: \(runningCodes)")
        XCTAssertEqual(runningCodes, [.SUCCESS: 2000])
        // Between dialogs the front end takes the pushes (the canceller keeps converging), still without allocating.
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        _ = allocations(harness, pushes: 50)
        let (between, betweenCodes) = allocations(harness, pushes: 1000)
        XCTAssertEqual(between, 0, "between dialogs: \(betweenCodes)")
        XCTAssertEqual(betweenCodes, [.SUCCESS: 2000])
    }
}
