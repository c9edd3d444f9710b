import Foundation
@testable import NuiSDK
import XCTest

/// Callbacks come from SDK threads and never while the SDK holds a lock: every SDK call made from inside a
/// callback returns (the docs advise against it; here it must not deadlock), and control calls racing the audio
/// thread are safe.
final class CallbackReentrancyTests: NuiServerTestCase {

    /// Pushes `bytes` at 8× real time from the calling thread, ignoring the codes (the dialog may end meanwhile).
    func pushIgnoringCodes(_ bytes: [UInt8]) {
        for offset in stride(from: 0, to: bytes.count, by: 640) {
            let end = min(offset + 640, bytes.count)
            _ = bytes[offset..<end].withUnsafeBytes {
                harness.nui.nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32(end - offset), FirstPack: false)
            }
            usleep(2500)
        }
    }

    func testEveryKindOfCallFromInsideCallbacks() throws {
        let nui = harness.nui
        let codes = LockedValue<[String: NuiResultCode]>([:])
        func note(_ name: String, _ code: NuiResultCode) { codes.update { $0[name] = code } }
        let initParameters = NuiHarness.json(harness.initParameters(url: server.url()))
        harness.recorder.onAudioState = { state in
            if state == .STATE_OPEN && codes.get()["push in STATE_OPEN"] == nil { // the first dialog: the test thread does not push yet
                note("version in STATE_OPEN", nui.nui_get_version() == nil ? .NUI_ERR_INTERNAL : .SUCCESS)
                note("push in STATE_OPEN", nui.nui_update_audio_data([0, 0, 0, 0], Len: 4, FirstPack: true))
            }
        }
        harness.recorder.onLog = { _, line in
            if line.contains("nui_dialog_start: dialog 1") {
                note("set_params in a log callback", nui.nui_set_params(NuiHarness.json(NuiHarness.recognitionParameters())))
            }
        }
        harness.recorder.onEvent = { event in
            switch (event.event, event.dialog) {
            case (.EVENT_SENTENCE_END, 1) where codes.get()["cancel in SENTENCE_END"] == nil:
                note("response in SENTENCE_END", nui.nui_get_all_response() == nil ? .NUI_ERR_INTERNAL : .SUCCESS)
                note("action in SENTENCE_END", nui.nui_dialog_action(#"{"type": "action", "command": "play_start"}"#))
                note("cancel in SENTENCE_END", nui.nui_dialog_cancel(false))
            case (.EVENT_TRANSCRIBER_COMPLETE, 1):
                note("start in COMPLETE", nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"))
            case (.EVENT_TRANSCRIBER_STARTED, 2):
                note("forced cancel in STARTED", nui.nui_dialog_cancel(true))
            case (.EVENT_TRANSCRIBER_COMPLETE, 2):
                note("release in COMPLETE", nui.nui_release())
                note("initialize in COMPLETE", nui.nui_initialize(initParameters, logLevel: .NUI_LOG_LEVEL_DEBUG, saveLog: false))
            default: break
            }
        }
        XCTAssertEqual(nui.nui_initialize(initParameters, logLevel: .NUI_LOG_LEVEL_DEBUG, saveLog: false), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: ["max_sentence_silence": 500])), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        pushIgnoringCodes(try TestVectors.int16("nearend_16k.wav").samples.prefix(16000 * 8).withUnsafeBytes { Array($0) })
        XCTAssertTrue(harness.recorder.wait(timeout: 30) { _ in codes.get()["initialize in COMPLETE"] != nil }, "\(codes.get())")
        XCTAssertEqual(codes.get(), [
            "version in STATE_OPEN": .SUCCESS, "push in STATE_OPEN": .SUCCESS, "set_params in a log callback": .NUI_ERR_DIALOG_RUNNING,
            "response in SENTENCE_END": .SUCCESS, "action in SENTENCE_END": .SUCCESS, "cancel in SENTENCE_END": .SUCCESS,
            "start in COMPLETE": .SUCCESS, "forced cancel in STARTED": .SUCCESS, "release in COMPLETE": .SUCCESS,
            "initialize in COMPLETE": .SUCCESS,
        ])
        harness.nui.callbacks.drain()
        XCTAssertEqual(harness.recorder.states, [.STATE_OPEN, .STATE_PAUSE, .STATE_OPEN, .STATE_PAUSE, .STATE_CLOSE])
        XCTAssertFalse(harness.recorder.events.contains { $0.onMainThread })
    }

    /// `nui_dialog_cancel` (unforced, then forced) and `nui_dialog_start` from inside `EVENT_AEC_DATA`: each returns,
    /// what it posts comes after the current callback, in the documented order, and all on the one callback thread.
    func testCancelAndStartFromInsideAecData() throws {
        let nui = harness.nui
        let codes = LockedValue<[String]>([])
        harness.recorder.onAssist = {
            let (dialog, count) = nui.lock.withLock { (nui.dialog?.number, codes.get().count) }
            switch (dialog, count) {
            case (1, 0): codes.update { $0.append("cancel \(nui.nui_dialog_cancel(false))") }
            case (2, 3): codes.update { $0.append("forced cancel \(nui.nui_dialog_cancel(true))") }
            default: break
            }
        }
        harness.recorder.onEvent = { event in
            if event.event == .EVENT_TRANSCRIBER_COMPLETE && event.dialog == 1 {
                codes.update { $0.append("start \(nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"))") }
            }
            if event.event == .EVENT_TRANSCRIBER_STARTED && event.dialog == 2 { codes.update { $0.append("started 2") } }
        }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        pushIgnoringCodes(TestAudio.pcm())
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED, count: 2, timeout: 20), "\(codes.get())")
        pushIgnoringCodes(TestAudio.pcm(bursts: [], seconds: 1))
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_COMPLETE, count: 2, timeout: 20), "\(codes.get())")
        harness.nui.callbacks.drain()
        XCTAssertEqual(codes.get(), ["cancel SUCCESS", "start SUCCESS", "started 2", "forced cancel SUCCESS"])
        let order = harness.recorder.timeline.filter { !$0.hasPrefix("EVENT_VAD") && !$0.hasPrefix("EVENT_SENTENCE") && !$0.hasPrefix("EVENT_ASR_PARTIAL") }
        XCTAssertEqual(order, ["STATE_OPEN", "EVENT_TRANSCRIBER_STARTED 1", "STATE_PAUSE", "EVENT_TRANSCRIBER_COMPLETE 1",
                               "STATE_OPEN", "EVENT_TRANSCRIBER_STARTED 2", "STATE_PAUSE", "EVENT_TRANSCRIBER_COMPLETE 2"])
        XCTAssertEqual(harness.recorder.threads.count, 1, "every callback (events, states, AEC data, RMS, logs) on one thread")
    }

    func testThePullCallbackMayReleaseTheSDK() throws {
        let nui = harness.nui
        let released = LockedValue<NuiResultCode?>(nil)
        harness.recorder.pullAudio = [UInt8](repeating: 0, count: 64000)
        harness.recorder.onPull = { [recorder = harness.recorder] in
            if recorder.pulls == 60 && released.get() == nil { released.set(nui.nui_release()) }
        }
        nui.pullSpeed = 4
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(), manual: false)), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertTrue(harness.recorder.wait(timeout: 20) { _ in released.get() != nil })
        XCTAssertEqual(released.get(), .SUCCESS)
        harness.nui.callbacks.drain()
        XCTAssertEqual(harness.recorder.states.last, .STATE_CLOSE)
        XCTAssertEqual(harness.recorder.events.last?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let pulls = harness.recorder.pulls
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertLessThanOrEqual(harness.recorder.pulls, pulls + 1, "the audio thread stopped asking")
    }

    func testControlCallsRacingTheAudioThread() throws {
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        let stop = LockedValue(false)
        let pushes = LockedValue([NuiResultCode: Int]())
        let pusher = Thread { [nui = harness.nui] in
            let silence = [CChar](repeating: 0, count: 320)
            while !stop.get() {
                let code = nui.nui_update_audio_data(silence, Len: 320, FirstPack: false)
                pushes.update { $0[code, default: 0] += 1 }
                usleep(1000)
            }
        }
        pusher.start()
        for round in 1...10 {
            XCTAssertEqual(harness.start(), .SUCCESS, "round \(round)")
            usleep(30_000)
            XCTAssertEqual(harness.nui.nui_dialog_cancel(round % 2 == 0), .SUCCESS, "round \(round)")
            if round % 2 == 1 { harness.recorder.waitForEnd(timeout: 15) } // unforced: wait for the end before the next start
            XCTAssertTrue(harness.recorder.wait(timeout: 15) { $0.events(.EVENT_TRANSCRIBER_COMPLETE).count
                + $0.events(.EVENT_ASR_ERROR).count >= round }, "round \(round) ended")
        }
        stop.set(true)
        while pusher.isExecuting { usleep(1000) }
        let counts = pushes.get()
        XCTAssertGreaterThan(counts[.SUCCESS, default: 0], 0)
        XCTAssertEqual(Set(counts.keys).subtracting([.SUCCESS, .NUI_ERR_NO_DIALOG]), [], "\(counts)")
    }
}
