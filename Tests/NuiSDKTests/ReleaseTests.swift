import Foundation
@testable import NuiSDK
@testable import VoiceRecognition
import AudioFrontEnd
import XCTest

/// `nui_release` lets the front end, the engine and the dialog go before it returns (Fuzz/lsan.supp had to hide a
/// FrontEnd still referenced when a C program exited right after `nui_release`).
final class ReleaseTests: NuiServerTestCase {
    func testReleaseFreesTheEngineAndTheFrontEndBeforeItReturns() throws {
        let nui = harness.nui
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        weak var engine: RecognitionEngine?
        weak var frontEnd: FrontEnd?
        weak var core: RecognitionCore?
        for round in 1...3 { // a dialog released while it runs, one that completed, one released from a callback
            XCTAssertEqual(harness.start(), .SUCCESS)
            XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED, count: round))
            engine = nui.lock.withLock { nui.engine }
            frontEnd = engine?.frontEnd
            core = nui.lock.withLock { nui.dialog?.core }
            XCTAssertNotNil(frontEnd)
            harness.push(TestAudio.pcm(bursts: [(0.3, 1.0)], seconds: 1.5), speed: 8)
            switch round {
            case 1:
                XCTAssertEqual(nui.nui_release(), .SUCCESS)
            case 2:
                XCTAssertEqual(nui.nui_dialog_cancel(false), .SUCCESS)
                XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_COMPLETE, count: round))
                XCTAssertEqual(nui.nui_release(), .SUCCESS)
            default:
                let released = LockedValue<NuiResultCode?>(nil)
                harness.recorder.onAssist = { if released.get() == nil { released.set(nui.nui_release()) } }
                let silence = [CChar](repeating: 0, count: 640)
                for _ in 0..<25 { _ = nui.nui_update_audio_data(silence, Len: 640, FirstPack: false) } // SUCCESS until released
                XCTAssertTrue(harness.recorder.wait { _ in released.get() != nil })
                XCTAssertEqual(released.get(), .SUCCESS)
            }
            nui.callbacks.drain() // what the C nui_release waits for (STATE_CLOSE delivered)
            XCTAssertNil(core, "round \(round): the dialog's core is gone when nui_release returns")
            XCTAssertNil(engine, "round \(round): the engine is gone when nui_release returns")
            XCTAssertNil(frontEnd, "round \(round): the front end is gone when nui_release returns")
            harness.recorder.onAssist = nil
            XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
            XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        }
    }
}
