@testable import AudioFrontEnd
import Foundation
@testable import NuiSDK
@testable import VoiceRecognition
import XCTest

/// NeoNui as a player's echo reference (`pushReference(samples:)`, `setPlaying(_:)`, used by NuiTTS's
/// StreamInputTtsPlayback): what each call does before the first dialog, in one, between dialogs, with AEC off,
/// and that a playing hint given before the front end exists reaches it when the first dialog starts.
final class PlayerReferenceTests: XCTestCase {
    func playing(_ nui: NeoNui) -> Bool? {
        nui.lock.withLock { nui.engine }?.frontEnd.playing.load(ordering: .acquiring)
    }

    func testPushesAndThePlayingHintAcrossTheLifecycle() throws {
        let server = try ReferenceServer()
        let harness = try NuiHarness()
        defer {
            harness.close()
            server.stop()
        }
        let nui = harness.nui
        let samples = [Int16](repeating: 200, count: 320)
        func push() -> PushResult { samples.withUnsafeBufferPointer { nui.pushReference(samples: $0) } }
        let refused = PushResult(status: .notRunning, accepted: 0)
        XCTAssertEqual(push(), refused, "before nui_initialize")
        XCTAssertNil(nui.referenceSampleRate)
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(top: ["enable_aec": true])), .SUCCESS)
        XCTAssertEqual(nui.referenceSampleRate, 16000)
        XCTAssertEqual(push(), refused, "before the first dialog: no front end yet")
        nui.setPlaying(false) // the player is idle; the front end, made later, starts assuming playback
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(playing(nui), false, "the hint given before the first dialog reached its front end")
        XCTAssertEqual(push(), PushResult(status: .ok, accepted: samples.count), "in a dialog")
        nui.setPlaying(true)
        XCTAssertEqual(playing(nui), true)
        XCTAssertEqual(nui.nui_dialog_cancel(true), .SUCCESS)
        XCTAssertEqual(push(), PushResult(status: .ok, accepted: samples.count), "between dialogs: the engine takes it")
        nui.setPlaying(false)
        XCTAssertEqual(playing(nui), false, "between dialogs")
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertEqual(playing(nui), false, "kept for the next dialog")
        XCTAssertEqual(nui.nui_dialog_cancel(true), .SUCCESS)
        // AEC off: the reference is refused like nui_push_reference_data's AEC_DISABLED.
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(top: ["enable_aec": false])), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertEqual(push(), refused, "AEC off")
        XCTAssertEqual(nui.nui_dialog_cancel(true), .SUCCESS)
        XCTAssertEqual(nui.nui_release(), .SUCCESS)
        XCTAssertEqual(push(), refused, "after nui_release")
    }
}
