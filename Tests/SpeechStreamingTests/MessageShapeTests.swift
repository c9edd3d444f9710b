import Foundation
@testable import SpeechStreaming
import XCTest

/// The messages the client builds, compared field by field with the examples of asr-protocols.md, and the
/// parser run on the spec's server examples.
final class MessageShapeTests: XCTestCase {
    static let taskId = "2bf83b9a4baeb4fda8d9a0123456789a"

    func object(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> NSDictionary {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary else {
            XCTFail("not a JSON object: \(text)", file: file, line: line)
            return [:]
        }
        return object
    }

    /// Compares every field (deep equality of the parsed objects).
    func assertSameJSON(_ built: String, _ spec: String, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(object(built, file: file, line: line), object(spec, file: file, line: line),
                       "\(label):\n built \(built)\n spec  \(spec)", file: file, line: line)
    }

    func dashScope(_ parameters: DashScopeParameters = DashScopeParameters(), context: [ContextMessage] = []) throws -> DashScopeProtocol {
        try DashScopeProtocol(DashScopeConfiguration(apiKey: "sk-1234", parameters: parameters, context: context))
    }

    // MARK: DashScope client messages (§4)

    func testRunTaskMatchesTheSpecSkeleton() throws {
        let built = try dashScope().startMessage(taskId: Self.taskId)
        assertSameJSON(built, """
            {"header": {"action": "run-task", "task_id": "\(Self.taskId)", "streaming": "duplex"},
             "payload": {"task_group": "audio", "task": "asr", "function": "recognition", "model": "fun-asr-realtime",
                         "parameters": {"format": "pcm", "sample_rate": 16000}, "input": {}}}
            """, "run-task with defaults")
    }

    func testRunTaskWithEveryParameterAndContext() throws {
        let parameters = DashScopeParameters(
            model: "qwen-audio-3.0-asr-flash-streaming", format: .opus, sampleRate: 16000, semanticPunctuationEnabled: true,
            maxSentenceSilenceMilliseconds: 800, multiThresholdModeEnabled: false, heartbeat: true, vocabularyId: "vocab-1",
            instantVocabulary: ["通义": 5], languageHints: ["zh"], speechNoiseThreshold: -0.3,
            specialWordFilter: try JSONValue(parsing: #"{"filter_with_empty": {"word_list": ["x"]}}"#))
        let context = [ContextMessage(role: .user, text: "你好啊"), ContextMessage(role: .assistant, text: "你好啊，我是通义千问，有什么可以帮助你的？")]
        let built = try dashScope(parameters, context: context).startMessage(taskId: Self.taskId)
        assertSameJSON(built, """
            {"header": {"action": "run-task", "task_id": "\(Self.taskId)", "streaming": "duplex"},
             "payload": {"task_group": "audio", "task": "asr", "function": "recognition",
                         "model": "qwen-audio-3.0-asr-flash-streaming",
                         "parameters": {"format": "opus", "sample_rate": 16000, "semantic_punctuation_enabled": true,
                                        "max_sentence_silence": 800, "multi_threshold_mode_enabled": false, "heartbeat": true,
                                        "vocabulary_id": "vocab-1", "vocabulary": {"通义": 5}, "language_hints": ["zh"],
                                        "speech_noise_threshold": -0.3,
                                        "special_word_filter": {"filter_with_empty": {"word_list": ["x"]}}},
                         "input": {"context": [
                            {"role": "user", "content": [{"type": "input_text", "text": "你好啊"}]},
                            {"role": "assistant", "content": [{"type": "text", "text": "你好啊，我是通义千问，有什么可以帮助你的？"}]}]}}}
            """, "run-task with every nls_config parameter")
    }

    func testAdditionalParametersOverrideNamedOnes() throws {
        let parameters = DashScopeParameters(heartbeat: false, additional: ["heartbeat": true, "disfluency_removal_enabled": true])
        let p = object(try dashScope(parameters).startMessage(taskId: Self.taskId))["payload"] as? NSDictionary
        XCTAssertEqual((p?["parameters"] as? NSDictionary)?["heartbeat"] as? Bool, true)
        XCTAssertEqual((p?["parameters"] as? NSDictionary)?["disfluency_removal_enabled"] as? Bool, true)
    }

    func testContinueTaskMatchesTheSpec() throws {
        let context = [ContextMessage(role: .user, text: "你好啊"), ContextMessage(role: .assistant, text: "你好啊，我是通义千问，有什么可以帮助你的？")]
        let built = try XCTUnwrap(try dashScope().contextMessage(taskId: Self.taskId, context: context))
        assertSameJSON(built, """
            {"header": {"action": "continue-task", "task_id": "\(Self.taskId)", "streaming": "duplex"},
             "payload": {"input": {"context": [
                {"role": "user", "content": [{"type": "input_text", "text": "你好啊"}]},
                {"role": "assistant", "content": [{"type": "text", "text": "你好啊，我是通义千问，有什么可以帮助你的？"}]}]}}}
            """, "continue-task")
    }

    func testFinishTaskMatchesTheSpec() throws {
        assertSameJSON(try dashScope().finishMessage(taskId: Self.taskId), """
            {"header": {"action": "finish-task", "task_id": "\(Self.taskId)", "streaming": "duplex"}, "payload": {"input": {}}}
            """, "finish-task")
    }

    func testDashScopeHandshakeHeaders() throws {
        let wire = try DashScopeProtocol(DashScopeConfiguration(apiKey: "sk-1234", workspace: "ws-9"))
        let headers = Dictionary(uniqueKeysWithValues: wire.handshakeHeaders.map { ($0.name, $0.value) })
        XCTAssertEqual(headers["Authorization"], "Bearer sk-1234")
        XCTAssertEqual(headers["X-DashScope-WorkSpace"], "ws-9")
        XCTAssertNotNil(headers["User-Agent"])
        XCTAssertEqual(wire.endpoint, try Endpoint(url: "wss://dashscope.aliyuncs.com:443/api-ws/v1/inference"))
    }

    // MARK: NLS client messages (§11.1)

    func testStartTranscriptionMatchesTheSpecExample() throws {
        let config = NLSConfiguration(url: "wss://nls-gateway-cn-shanghai.aliyuncs.com/ws/v1", token: "tok",
                                      appKey: "17d4c634****", format: .opus)
        let built = object(JSONText.encode(NLSProtocol.startTranscription(
            taskId: "640bc797bb684bd6960185651307****", messageId: "05450bf69c53413f8d88aed1ee60****", configuration: config)))
        let spec = object("""
            {"header": {"message_id": "05450bf69c53413f8d88aed1ee60****", "task_id": "640bc797bb684bd6960185651307****",
                        "namespace": "SpeechTranscriber", "name": "StartTranscription", "appkey": "17d4c634****"},
             "payload": {"format": "opus", "sample_rate": 16000, "enable_intermediate_result": true,
                         "enable_punctuation_prediction": true, "enable_inverse_text_normalization": true}}
            """)
        XCTAssertEqual(built["header"] as? NSDictionary, spec["header"] as? NSDictionary)
        XCTAssertEqual(built["payload"] as? NSDictionary, spec["payload"] as? NSDictionary)
        XCTAssertEqual(((built["context"] as? NSDictionary)?["sdk"] as? NSDictionary)?["language"] as? String, "swift",
                       "the SDK context the official SDKs add")
        XCTAssertEqual(Set((built as? [String: Any])?.keys.map { $0 } ?? []), ["header", "payload", "context"])
    }

    func testStopTranscriptionHasTheSameHeaderAndNoPayload() throws {
        let built = object(JSONText.encode(NLSProtocol.stopTranscription(taskId: "640bc797bb684bd6960185651307aaaa",
                                                                         messageId: "05450bf69c53413f8d88aed1ee60bbbb", appKey: nil)))
        XCTAssertEqual(built["header"] as? NSDictionary, object("""
            {"message_id": "05450bf69c53413f8d88aed1ee60bbbb", "task_id": "640bc797bb684bd6960185651307aaaa",
             "namespace": "SpeechTranscriber", "name": "StopTranscription"}
            """), "Tingwu: no appkey")
        XCTAssertNil(built["payload"])
    }

    func testNLSIdsAreFreshLowercaseHexAndTheTokenGoesInQueryAndHeader() throws {
        let wire = try NLSProtocol(NLSConfiguration(url: "wss://nls-gateway.aliyuncs.com/ws/v1", token: "a b&c", appKey: "k"))
        let first = object(wire.startMessage(taskId: TaskIdentifier.make()))["header"] as? NSDictionary
        let second = object(wire.finishMessage(taskId: "x"))["header"] as? NSDictionary
        for id in [first?["message_id"], first?["task_id"], second?["message_id"]] {
            let text = id as? String ?? ""
            XCTAssertEqual(text.count, 32)
            XCTAssertTrue(text.allSatisfy { "0123456789abcdef".contains($0) }, text)
        }
        XCTAssertNotEqual(first?["message_id"] as? String, second?["message_id"] as? String)
        XCTAssertEqual(wire.endpoint.pathAndQuery, "/ws/v1?token=a%20b%26c")
        XCTAssertEqual(wire.handshakeHeaders.first { $0.name == "X-NLS-Token" }?.value, "a b&c")
        // A MeetingJoinUrl keeps its own query; a token query already there is not repeated.
        let tingwu = try NLSProtocol(NLSConfiguration(url: "wss://tingwu-realtime-cn-beijing.aliyuncs.com/api/ws/v1?mc=ABC&token=t", token: "default"))
        XCTAssertEqual(tingwu.endpoint.pathAndQuery, "/api/ws/v1?mc=ABC&token=t")
    }

    // MARK: Server events (§6, §11.1)

    func testResultGeneratedExampleIsAFinalResult() throws {
        let parsed = try dashScope().parse("""
            {"header": {"task_id": "2bf83b9a-baeb-4fda-8d9a-xxxxxxxxxxxx", "event": "result-generated", "attributes": {}},
             "payload": {"output": {"sentence": {"begin_time": 170, "end_time": 920, "text": "好，我知道了", "heartbeat": false,
                 "sentence_end": true, "words": [{"begin_time": 170, "end_time": 295, "text": "好的", "punctuation": "，"}]}},
                 "usage": {"duration": 3}}}
            """)
        XCTAssertEqual(parsed, ParsedMessage(taskId: "2bf83b9a-baeb-4fda-8d9a-xxxxxxxxxxxx", items: [
            .result(ParsedResult(sentenceId: nil, text: "好，我知道了", beginMilliseconds: 170, endMilliseconds: 920, isFinal: true))]))
    }

    func testFinalityFollowsSentenceEndThenEndTime() throws {
        let wire = try dashScope()
        func final(_ sentence: String) throws -> Bool? {
            let items = try wire.parse(#"{"header":{"event":"result-generated"},"payload":{"output":{"sentence":\#(sentence)}}}"#).items
            if case .result(let r) = items.first { return r.isFinal }
            return nil
        }
        XCTAssertEqual(try final(#"{"text":"a","end_time":null,"sentence_end":true}"#), true, "Paraformer's end_time null with sentence_end")
        XCTAssertEqual(try final(#"{"text":"a","end_time":900,"sentence_end":false}"#), false, "sentence_end decides")
        XCTAssertEqual(try final(#"{"text":"a","end_time":900}"#), true, "no sentence_end: end_time set")
        XCTAssertEqual(try final(#"{"text":"a","end_time":null}"#), false, "no sentence_end: end_time null")
    }

    func testHeartbeatIsDropped() throws {
        let parsed = try dashScope().parse(#"{"header":{"event":"result-generated"},"payload":{"output":{"sentence":{"text":"","heartbeat":true,"sentence_id":0}}}}"#)
        XCTAssertEqual(parsed.items, [])
    }

    func testLifecycleEvents() throws {
        let wire = try dashScope()
        XCTAssertEqual(try wire.parse(#"{"header":{"task_id":"t","event":"task-started","attributes":{}},"payload":{}}"#).items, [.started(sessionId: nil)])
        XCTAssertEqual(try wire.parse(#"{"header":{"task_id":"t","event":"task-finished","attributes":{}},"payload":{"output":{},"usage":null}}"#).items, [.completed])
        XCTAssertEqual(try wire.parse("""
            {"header": {"task_id": "t", "event": "task-failed", "error_code": "CLIENT_ERROR",
                        "error_message": "request timeout after 23 seconds.", "attributes": {}}, "payload": {}}
            """).items, [.failed(code: "CLIENT_ERROR", message: "request timeout after 23 seconds.")])
    }

    func testGummyTranscriptionAndTranslation() throws {
        let parsed = try dashScope().parse("""
            {"header": {"task_id": "t", "event": "result-generated", "attributes": {}},
             "payload": {"output": {
               "translations": [{"sentence_id": 0, "begin_time": 100, "end_time": 2720, "text": "This is a text used for testing.",
                                 "lang": "en", "words": [], "sentence_end": true}],
               "transcription": {"sentence_id": 0, "begin_time": 100, "end_time": 2720, "text": "这是一句用来测试的文本。",
                                 "words": [], "sentence_end": true}}}}
            """)
        XCTAssertEqual(parsed.items, [
            .result(ParsedResult(sentenceId: 1, text: "这是一句用来测试的文本。", beginMilliseconds: 100, endMilliseconds: 2720, isFinal: true)),
            .translation(ParsedTranslation(sentenceId: 1, text: "This is a text used for testing.", language: "en", isFinal: true)),
        ])
    }

    func testNLSEvents() throws {
        let wire = try NLSProtocol(NLSConfiguration(url: "ws://127.0.0.1/ws/v1"))
        XCTAssertEqual(try wire.parse("""
            {"header":{"message_id":"05450bf69c53413f8d88aed1ee60****","task_id":"640bc797bb684bd6960185651307****","namespace":"SpeechTranscriber","name":"SentenceEnd","status":20000000,"status_message":"GATEWAY|SUCCESS|Success."},"payload":{"index":1,"time":3260,"begin_time":1800,"result":"今年双十一我要买电视"}}
            """), ParsedMessage(taskId: "640bc797bb684bd6960185651307****", items: [
                .result(ParsedResult(sentenceId: 1, text: "今年双十一我要买电视", beginMilliseconds: 1800, endMilliseconds: 3260, isFinal: true))]))
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"TranscriptionStarted","status":20000000},"payload":{"session_id":"abc"}}"#).items,
                       [.started(sessionId: "abc")])
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"SentenceBegin"},"payload":{"index":2,"time":4000}}"#).items,
                       [.sentenceBegin(sentenceId: 2, beginMilliseconds: 4000)])
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"TranscriptionResultChanged"},"payload":{"index":2,"time":4500,"result":"今年"}}"#).items,
                       [.result(ParsedResult(sentenceId: 2, text: "今年", beginMilliseconds: nil, endMilliseconds: 4500, isFinal: false))])
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"TranscriptionCompleted","status":20000000},"payload":{}}"#).items, [.completed])
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"TaskFailed","status":40000004,"status_text":"Gateway:IDLE_TIMEOUT:idle"},"payload":{}}"#).items,
                       [.failed(code: "40000004", message: "Gateway:IDLE_TIMEOUT:idle")])
        XCTAssertEqual(try wire.parse(#"{"header":{"name":"ResultTranslated"},"payload":{"index":3,"target_lang":"en","translate_result":[{"text":"hello","index":3}]}}"#).items,
                       [.translation(ParsedTranslation(sentenceId: 3, text: "hello", language: "en", isFinal: true))])
    }

    func testMalformedMessagesThrow() throws {
        let dash = try dashScope(), nls = try NLSProtocol(NLSConfiguration(url: "ws://h/ws/v1"))
        for text in ["this is not JSON {", "[1, 2]", #"{"payload": {}}"#, #"{"header": {"task_id": "t"}}"#, ""] {
            for wire in [dash as any WireProtocol, nls] {
                XCTAssertThrowsError(try wire.parse(text), "\(type(of: wire)): \(text)") {
                    XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .malformedMessage)
                }
            }
        }
    }
}
