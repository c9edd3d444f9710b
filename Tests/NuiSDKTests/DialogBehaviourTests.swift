import Foundation
@testable import NuiSDK
import XCTest

/// The documented behaviour around a dialog: EVENT_MIC_ERROR, forced and unforced cancel, EVENT_ASR_ERROR with its
/// code, Tingwu's sentence starts and translations, context biasing, a fresh API key per dialog.
final class DialogBehaviourTests: XCTestCase {
    var harness: NuiHarness!
    var server: ReferenceServer?

    override func setUpWithError() throws { harness = try NuiHarness() }

    override func tearDown() {
        harness.close()
        server?.stop()
    }

    /// Initializes, sets parameters and starts a push-mode DashScope dialog at `url`; waits for the start.
    func startDialog(url: String, model: String = "paraformer-realtime-v2", dialog: [String: Any] = [:],
                     waitForStart: Bool = true, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(harness.initialize(harness.initParameters(url: url)), .SUCCESS, file: file, line: line)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(model: model, nls: ["max_sentence_silence": 500])), .SUCCESS,
                       file: file, line: line)
        XCTAssertEqual(harness.start(dialog), .SUCCESS, file: file, line: line)
        if waitForStart { XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED), "started", file: file, line: line) }
    }

    func nearEnd(seconds: Double) throws -> [UInt8] {
        Array(try TestVectors.int16("nearend_16k.wav").samples.withUnsafeBytes { Array($0) }.prefix(Int(seconds * 32000)))
    }

    func testMicErrorAfterTwoSecondsWithoutAudio() throws {
        server = try ReferenceServer()
        startDialog(url: server!.url())
        harness.push(try nearEnd(seconds: 0.5))
        let event = try XCTUnwrap(harness.recorder.wait(for: .EVENT_MIC_ERROR, timeout: 10))
        XCTAssertEqual(event.code, NuiResultCode.NUI_ERR_MIC_NO_DATA.rawValue)
        XCTAssertFalse(event.finish, "the dialog goes on")
        let response = try XCTUnwrap(Self.object(event.response))
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(response["milliseconds"] as? Int), 2000)
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .running)
    }

    func testPullModeMicErrorWhenTheAppHasNoAudio() throws {
        server = try ReferenceServer()
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server!.url(), manual: false)), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        let event = try XCTUnwrap(harness.recorder.wait(for: .EVENT_MIC_ERROR, timeout: 10))
        XCTAssertEqual(event.code, NuiResultCode.NUI_ERR_MIC_NO_DATA.rawValue)
        XCTAssertGreaterThan(harness.recorder.pulls, 50, "the SDK kept asking at real-time pace")
    }

    func testForcedCancelCompletesAtOnceAndNothingFollows() throws {
        server = try ReferenceServer()
        startDialog(url: server!.url())
        harness.push(try nearEnd(seconds: 5))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .ready, "ready as soon as the call returns")
        harness.nui.callbacks.drain()
        let count = harness.recorder.events.count
        XCTAssertEqual(harness.recorder.events.last?.event, .EVENT_TRANSCRIBER_COMPLETE, "complete at once")
        XCTAssertEqual(harness.recorder.events.last?.finish, true)
        Thread.sleep(forTimeInterval: 0.5)
        harness.nui.callbacks.drain()
        XCTAssertEqual(harness.recorder.events.count, count, "no event of the cancelled dialog after its completion")
        XCTAssertEqual(harness.recorder.states, [.STATE_OPEN, .STATE_PAUSE])
        XCTAssertEqual(harness.start(), .SUCCESS, "the next dialog starts right away")
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED, count: 2))
    }

    func testCancelWithoutForceWaitsForTheFinalResultOfTheOpenSentence() throws {
        server = try ReferenceServer(["--fault", "slow-finish:delay_ms=1000"])
        startDialog(url: server!.url())
        harness.push(try nearEnd(seconds: 4.0)) // the first utterance (3.0 s) is still open
        let before = harness.recorder.events(.EVENT_SENTENCE_END).count
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .stopping)
        // The dialog's audio is closed; the front end takes the push (it outlives dialogs), nothing of it is sent.
        XCTAssertEqual(harness.nui.nui_update_audio_data([0, 0], Len: 2, FirstPack: false), .SUCCESS, "taken by the front end")
        let end = try XCTUnwrap(harness.recorder.waitForEnd())
        XCTAssertEqual(end.event, .EVENT_TRANSCRIBER_COMPLETE)
        let events = harness.recorder.events
        let last = try XCTUnwrap(events.lastIndex { $0.event == .EVENT_SENTENCE_END })
        XCTAssertEqual(harness.recorder.events(.EVENT_SENTENCE_END).count, before + 1, "the open sentence's final result")
        XCTAssertLessThan(last, events.count - 1, "it comes before EVENT_TRANSCRIBER_COMPLETE")
        XCTAssertTrue(end.asrResult?.contains("task-finished") == true, end.asrResult ?? "")
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .ready)
    }

    func checkError(url: String, expected: NuiResultCode, responseContains: String? = nil, line: UInt = #line) throws {
        startDialog(url: url, waitForStart: false, line: line)
        let end = try XCTUnwrap(harness.recorder.waitForEnd(), line: line)
        XCTAssertEqual(end.event, .EVENT_ASR_ERROR, line: line)
        XCTAssertEqual(end.code, expected.rawValue, "\(end.asrResult ?? "")", line: line)
        XCTAssertTrue(end.finish, line: line)
        XCTAssertFalse(end.asrResult?.isEmpty ?? true, "the error message", line: line)
        XCTAssertNotNil(Self.object(end.response), "nui_get_all_response is JSON: \(end.response ?? "nil")", line: line)
        if let responseContains { XCTAssertTrue(end.response?.contains(responseContains) == true, end.response ?? "", line: line) }
        harness.nui.callbacks.drain()
        XCTAssertEqual(harness.recorder.states, [.STATE_OPEN, .STATE_PAUSE], line: line)
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .ready, line: line)
    }

    func testRefusedConnection() throws {
        try checkError(url: "ws://127.0.0.1:9/api-ws/v1/inference", expected: .NUI_ERR_CONNECTION_REFUSED)
    }

    func testWrongAPIKey() throws {
        server = try ReferenceServer(["--api-key", "another-key-entirely"])
        try checkError(url: server!.url(), expected: .NUI_ERR_UNAUTHORIZED)
    }

    func testTaskFailedCarriesTheServerJSON() throws {
        server = try ReferenceServer(["--fault", "task-failed:after_ms=200,code=InternalError,message=boom"])
        try checkError(url: server!.url(), expected: .NUI_ERR_TASK_FAILED, responseContains: "task-failed")
    }

    func testDialogStartReplacesTheAPIKey() throws {
        server = try ReferenceServer(["--api-key", "st-fresh-temporary-key"])
        startDialog(url: server!.url(), dialog: ["apikey": "st-fresh-temporary-key"])
    }

    func testContextAtStartAndByAction() throws {
        server = try ReferenceServer()
        let context: [[String: Any]] = [["role": "user", "content": [["text": "set a timer", "type": "input_text"]]]]
        startDialog(url: server!.url(), model: "fun-asr-realtime", dialog: ["input_context": context])
        let action = NuiHarness.json(["type": "action", "command": "context", "context": context])
        XCTAssertEqual(harness.nui.nui_dialog_action(action), .SUCCESS)
        XCTAssertEqual(harness.nui.nui_dialog_action(#"{"type": "action", "command": "play_start"}"#), .SUCCESS)
        XCTAssertEqual(harness.nui.nui_dialog_action(#"{"type": "action", "command": "play_over"}"#), .SUCCESS)
        harness.push(try nearEnd(seconds: 1))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let messages = server!.receivedMessages()
        func input(_ action: String) -> [String: Any]? {
            let message = messages.first { ($0["header"] as? [String: Any])?["action"] as? String == action }
            return (message?["payload"] as? [String: Any])?["input"] as? [String: Any]
        }
        XCTAssertNotNil(input("run-task")?["context"], "input_context went out with run-task")
        XCTAssertNotNil(input("continue-task")?["context"], "the context action went out as continue-task")
    }

    /// A context action on a dialog the service has just ended (task-failed) while NeoNui has not heard of the end
    /// yet: `NUI_ERR_NO_DIALOG`, as once the end is in (it was `NUI_ERR_INTERNAL`). The core's last event is held
    /// at its handler, so the call lands in that window every time.
    func testContextActionOnADialogTheServiceEndedIsNoDialog() throws {
        server = try ReferenceServer(["--fault", "task-failed:after_ms=500,code=InternalError,message=ended"])
        startDialog(url: server!.url(), model: "fun-asr-realtime", waitForStart: false)
        let running = try XCTUnwrap(harness.nui.lock.withLock { harness.nui.dialog })
        let forward = try XCTUnwrap(running.core.eventHandler)
        let held = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        running.core.eventHandler = { event in
            if event.isTerminal {
                held.signal()
                go.wait()
            }
            forward(event)
        }
        defer { go.signal() }
        XCTAssertEqual(held.wait(timeout: .now() + 15), .success, "the service ended the task")
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .running, "NeoNui has not heard of the end")
        let context: [[String: Any]] = [["role": "user", "content": [["text": "set a timer", "type": "input_text"]]]]
        let action = NuiHarness.json(["type": "action", "command": "context", "context": context])
        XCTAssertEqual(harness.nui.nui_dialog_action(action), .NUI_ERR_NO_DIALOG)
        go.signal()
        let end = try XCTUnwrap(harness.recorder.waitForEnd())
        XCTAssertEqual(end.event, .EVENT_ASR_ERROR)
        XCTAssertEqual(end.code, NuiResultCode.NUI_ERR_TASK_FAILED.rawValue)
        XCTAssertEqual(harness.nui.nui_dialog_action(action), .NUI_ERR_NO_DIALOG, "and after the end")
    }

    /// NLS (here Tingwu) has no context update: a context action on its running dialog keeps its code,
    /// `NUI_ERR_INTERNAL`, distinct from the ended dialog's `NUI_ERR_NO_DIALOG`; the dialog goes on.
    func testContextActionOnAnNLSDialogKeepsItsCode() throws {
        let token = "tingwu-meeting-token-9931"
        server = try ReferenceServer(["--api-key", token])
        var parameters = harness.initParameters(url: server!.url("/api/ws/v1") + "?mc=\(token)", ["app_key": "default", "token": "default"])
        parameters["apikey"] = nil
        XCTAssertEqual(harness.initialize(parameters), .SUCCESS)
        var params = NuiHarness.recognitionParameters()
        params["nls_config"] = ["sr_format": "pcm", "sample_rate": 16000]
        XCTAssertEqual(harness.setParams(params), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        let context: [[String: Any]] = [["role": "user", "content": [["text": "set a timer", "type": "input_text"]]]]
        XCTAssertEqual(harness.nui.nui_dialog_action(NuiHarness.json(["type": "action", "command": "context", "context": context])),
                       .NUI_ERR_INTERNAL)
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, .running, "the dialog goes on")
        harness.push(try nearEnd(seconds: 1))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
    }

    func testTingwuSentenceStartsAndTranslations() throws {
        let token = "tingwu-meeting-token-9931"
        server = try ReferenceServer(["--api-key", token, "--translate", "en"])
        var parameters = harness.initParameters(url: server!.url("/api/ws/v1") + "?mc=\(token)", ["app_key": "default", "token": "default"])
        parameters["apikey"] = nil
        XCTAssertEqual(harness.initialize(parameters), .SUCCESS)
        var params = NuiHarness.recognitionParameters(nls: ["max_sentence_silence": 500])
        params["nls_config"] = ["sr_format": "pcm", "sample_rate": 16000, "max_sentence_silence": 500]
        XCTAssertEqual(harness.setParams(params), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        harness.push(try nearEnd(seconds: 9))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let recorder = harness.recorder
        XCTAssertGreaterThanOrEqual(recorder.events(.EVENT_SENTENCE_END).count, 2)
        XCTAssertEqual(recorder.events(.EVENT_SENTENCE_START).count, recorder.events(.EVENT_SENTENCE_END).count)
        XCTAssertEqual(recorder.events(.EVENT_RESULT_TRANSLATED).count, recorder.events(.EVENT_SENTENCE_END).count)
        XCTAssertTrue(recorder.events(.EVENT_RESULT_TRANSLATED).allSatisfy { $0.asrResult?.contains("ResultTranslated") == true })
    }

    static func object(_ json: String?) -> [String: Any]? {
        json.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}
