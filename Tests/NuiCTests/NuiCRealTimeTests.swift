import AllocationCounter
import CNui
import Foundation
import NuiC
import XCTest

/// `nui_update_audio_data` and `nui_push_reference_data`, the C entry points the recorder and player threads call,
/// allocate nothing: before initialize, without a dialog, and while a dialog runs (where each push also runs the
/// front end over its complete 10 ms frames: AEC, NS, VAD, Opus).
/// In-process (the C functions are the NuiC module's), against the reference server.
final class NuiCRealTimeTests: XCTestCase {
    func testAudioPushesAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let server = try ReferenceServer()
        defer { server.stop() }
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nuirt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        let chunk = [Int16](repeating: 300, count: 320) // 20 ms at 16 kHz
        var codes: [Int32: Int] = [:]
        func burst(_ count: Int, pause: useconds_t = 0) -> Int64 {
            var seen: [Int32] = Array(repeating: 0, count: count) // allocated before counting starts
            afe_allocation_counter_start()
            chunk.withUnsafeBytes { raw in
                let bytes = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                for index in 0..<count {
                    seen[index] = index % 2 == 0 ? nui_push_reference_data(bytes, Int32(raw.count), false)
                        : nui_update_audio_data(bytes, Int32(raw.count), false)
                    if pause > 0 { usleep(pause) }
                }
            }
            let allocations = afe_allocation_counter_stop()
            for code in seen { codes[code, default: 0] += 1 }
            return allocations
        }
        _ = burst(10) // warm-up: first-use runtime metadata
        var allocations = burst(200) // not initialized
        var listener = NuiSdkListener()
        let parameters = #"{"url":"\#(server.url())","apikey":"k","device_id":"rt","service_mode":"1","#
            + #""audio_update_manually":"true","workspace":"\#(workspace.path)"}"#
        XCTAssertEqual(nui_initialize(parameters, &listener, LOG_LEVEL_WARNING, false), 0)
        defer { _ = nui_release() }
        let recognition = #"{"service_type":4,"nls_config":{"model":"fun-asr-realtime","sr_format":"opus","#
            + #""sample_rate":16000}}"#
        XCTAssertEqual(nui_set_params(recognition), 0)
        allocations += burst(200) // no dialog
        XCTAssertEqual(nui_dialog_start(MODE_P2T, ""), 0)
        _ = burst(100, pause: 2_500) // warm-up with a dialog
        codes = [:]
        allocations += burst(400, pause: 2_500) // 4 s of mic and reference at about 4x real time
        allocations += burst(2_000) // as fast as possible (20 s of audio, processed on this thread)
        XCTAssertEqual(allocations, 0, "allocations in 2,800 pushes: \(codes)")
        XCTAssertGreaterThanOrEqual(codes[0] ?? 0, 2_000, "accepted pushes: \(codes)")
        XCTAssertEqual(nui_dialog_cancel(true), 0)
        // A control: the counter does see an allocation on this thread.
        afe_allocation_counter_start()
        let array = [Int](repeating: 1, count: 100)
        XCTAssertGreaterThan(afe_allocation_counter_stop(), 0, "counter saw nothing for \(array.count)")
    }
}
