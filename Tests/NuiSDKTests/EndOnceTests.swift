import Foundation
@testable import NuiSDK
import XCTest

/// A dialog ends once, whoever ends it first: a forced `nui_dialog_cancel` (or `nui_release`) that took the running
/// dialog just as the server completed it must not report a second `EVENT_TRANSCRIBER_COMPLETE` (the call storm
/// found this window: 24 ends for 23 dialogs).
final class EndOnceTests: XCTestCase {
    var harness: NuiHarness!
    var server: ReferenceServer!

    override func setUpWithError() throws {
        harness = try NuiHarness()
        server = try ReferenceServer(["--fault", "slow-finish:delay_ms=500"])
    }

    override func tearDown() {
        harness.nui.beforeForcedEnd = nil
        harness.close()
        server.stop()
    }

    /// Starts a dialog, sends 2 s of speech and ends it without force: the server's completion is 500 ms away.
    func startAndStop(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS, file: file, line: line)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS, file: file, line: line)
        XCTAssertEqual(harness.start(), .SUCCESS, file: file, line: line)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED), file: file, line: line)
        let near = try TestVectors.int16("nearend_16k.wav").samples
        harness.push(Array(near.withUnsafeBytes { Array($0) }.prefix(2 * 32000)))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS, file: file, line: line)
    }

    func testAForcedCancelAfterTheServerCompletedEndsTheDialogOnce() throws {
        try startAndStop()
        // The forced cancel takes the stopping dialog, then (hook) waits until the core's completion was delivered.
        let recorder = harness.recorder
        var completedFirst = false
        harness.nui.beforeForcedEnd = { completedFirst = recorder.wait(for: .EVENT_TRANSCRIBER_COMPLETE, timeout: 10) != nil }
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        XCTAssertTrue(completedFirst, "the server's completion came while the forced cancel held the dialog")
        harness.nui.callbacks.drain()
        Thread.sleep(forTimeInterval: 0.3)
        harness.nui.callbacks.drain()
        let ends = recorder.events.filter { [.EVENT_TRANSCRIBER_COMPLETE, .EVENT_ASR_ERROR].contains($0.event) }
        XCTAssertEqual(ends.count, 1, "one end: \(ends.map(\.event))")
        XCTAssertEqual(recorder.states, [.STATE_OPEN, .STATE_PAUSE], "one STATE_PAUSE")
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .ready)
        XCTAssertEqual(harness.start(), .SUCCESS, "the next dialog starts")
        XCTAssertNotNil(recorder.wait(for: .EVENT_TRANSCRIBER_STARTED, count: 2))
    }

    /// The other order: the forced cancel ends the dialog first; the server's completion that follows is dropped.
    func testTheServersCompletionAfterAForcedCancelIsDropped() throws {
        try startAndStop()
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        Thread.sleep(forTimeInterval: 1.0) // the delayed finish (500 ms) arrives in here
        harness.nui.callbacks.drain()
        let ends = harness.recorder.events.filter { [.EVENT_TRANSCRIBER_COMPLETE, .EVENT_ASR_ERROR].contains($0.event) }
        XCTAssertEqual(ends.count, 1, "one end: \(ends.map(\.event))")
        XCTAssertEqual(harness.recorder.states, [.STATE_OPEN, .STATE_PAUSE])
    }
}
