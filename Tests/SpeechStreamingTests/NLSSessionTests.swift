import Foundation
import SpeechStreaming
import XCTest

/// The client against the reference server's NLS SpeechTranscriber endpoint (family C) and a Tingwu
/// MeetingJoinUrl: PCM at 16 and 8 kHz, Ogg Opus, sentence begin/end, translations, and the messages on
/// the wire.
final class NLSSessionTests: XCTestCase {
    static let token = "nls-token-4567"
    static let appKey = "appkey-test"

    func configuration(_ server: ReferenceServer, path: String = "/ws/v1", token: String? = token,
                       appKey: String? = appKey, format: AudioFormat = .pcm, sampleRate: Int = 16000) -> NLSConfiguration {
        NLSConfiguration(url: server.url(path), token: token, appKey: appKey, format: format, sampleRate: sampleRate,
                         maxSentenceSilenceMilliseconds: 400)
    }

    /// Runs one task and checks its sentences against the deterministic recognizer.
    func runAndCheck(_ config: NLSConfiguration, pieces: [[UInt8]], tolerance: Int = 0, label: String,
                     file: StaticString = #filePath, line: UInt = #line) throws -> EventRecorder {
        let session = try SpeechStreamingSession(configuration: config)
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        TestAudio.stream(session, pieces: pieces, file: file, line: line)
        session.stop()
        guard case .completed = recorder.waitForEnd() else {
            XCTFail("\(label): task ended with \(recorder.errors)", file: file, line: line)
            return recorder
        }
        Deterministic.check(recorder.sentenceEnds, tolerance: tolerance, label: label, file: file, line: line)
        let expected = Deterministic.sentences()
        let starts = recorder.events.compactMap { if case .sentenceStart(let s) = $0 { s } else { nil } }
        XCTAssertEqual(starts.map(\.sentenceId), expected.map(\.index), "\(label): SentenceBegin", file: file, line: line)
        for (start, want) in zip(starts, expected) {
            XCTAssertEqual(Double(start.beginMilliseconds), Double(want.begin), accuracy: Double(tolerance),
                           "\(label)", file: file, line: line)
            XCTAssertTrue(start.rawJSON.contains("\"SentenceBegin\""), "\(label): raw JSON", file: file, line: line)
        }
        let partials = recorder.events.compactMap { if case .partialResult(let r) = $0 { r } else { nil } }
        XCTAssertFalse(partials.isEmpty, "\(label): intermediate results", file: file, line: line)
        XCTAssertTrue(partials.allSatisfy { $0.beginMilliseconds == expected[$0.sentenceId - 1].begin || tolerance > 0 },
                      "\(label): partials carry their sentence's begin", file: file, line: line)
        if case .started(let started) = recorder.events.first {
            XCTAssertNotNil(started.sessionId, "\(label): TranscriptionStarted's session_id", file: file, line: line)
        } else {
            XCTFail("\(label): first event \(String(describing: recorder.events.first))", file: file, line: line)
        }
        session.close()
        return recorder
    }

    func testPCM16kTranscription() throws {
        let server = try ReferenceServer(["--api-key", Self.token, "--nls-appkey", Self.appKey])
        _ = try runAndCheck(configuration(server), pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200), label: "NLS 16 kHz")

        let messages = server.receivedMessages()
        XCTAssertEqual(messages.count, 2)
        let start = try XCTUnwrap(messages.first), stop = try XCTUnwrap(messages.last)
        let startHeader = try XCTUnwrap(start["header"] as? [String: Any])
        let stopHeader = try XCTUnwrap(stop["header"] as? [String: Any])
        XCTAssertEqual(startHeader["name"] as? String, "StartTranscription")
        XCTAssertEqual(stopHeader["name"] as? String, "StopTranscription")
        XCTAssertEqual(startHeader["namespace"] as? String, "SpeechTranscriber")
        XCTAssertEqual(startHeader["appkey"] as? String, Self.appKey)
        XCTAssertEqual(startHeader["task_id"] as? String, stopHeader["task_id"] as? String, "one task id")
        XCTAssertNotEqual(startHeader["message_id"] as? String, stopHeader["message_id"] as? String, "a new message id each")
        let payload = try XCTUnwrap(start["payload"] as? [String: Any])
        XCTAssertEqual(payload["format"] as? String, "pcm")
        XCTAssertEqual(payload["sample_rate"] as? Int, 16000)
        XCTAssertEqual(payload["enable_intermediate_result"] as? Bool, true)
        XCTAssertEqual(payload["max_sentence_silence"] as? Int, 400)
        XCTAssertNil(stop["payload"], "StopTranscription has no payload")
    }

    func testPCM8kTranscription() throws {
        let server = try ReferenceServer(["--api-key", Self.token])
        let session = try SpeechStreamingSession(configuration: configuration(server, sampleRate: 8000))
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(rate: 8000), size: 1600))
        session.stop()
        guard case .completed = recorder.waitForEnd() else { return XCTFail("\(recorder.errors)") }
        XCTAssertEqual(recorder.sentenceEnds.map(\.text), Deterministic.sentences().map(\.text))
        XCTAssertEqual(session.statistics.audioFramesSent, (TestAudio.pcm(rate: 8000).count + 1599) / 1600,
                       "100 ms frames are 1600 bytes at 8 kHz")
    }

    func testOggOpusTranscription() throws {
        let server = try ReferenceServer(["--api-key", Self.token])
        _ = try runAndCheck(configuration(server, format: .opus), pieces: TestAudio.opusPackets(TestAudio.samples()),
                            tolerance: 30, label: "NLS Ogg Opus")
    }

    func testTingwuMeetingURLWithTranslation() throws {
        let server = try ReferenceServer(["--api-key", "meeting-code", "--translate", "zh"])
        let config = configuration(server, path: "/api/ws/v1?mc=meeting-code", token: "default", appKey: nil)
        let recorder = try runAndCheck(config, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200), label: "Tingwu")
        let translations = recorder.events.compactMap { if case .translation(let t) = $0 { t } else { nil } }
        let ends = recorder.sentenceEnds
        XCTAssertEqual(translations.count, ends.count)
        for (translation, end) in zip(translations, ends) {
            XCTAssertEqual(translation.sentenceId, end.sentenceId)
            XCTAssertEqual(translation.text, "[zh] " + end.text)
            XCTAssertEqual(translation.language, "zh")
            XCTAssertTrue(translation.rawJSON.contains("ResultTranslated"))
        }
        let header = server.receivedMessages().first?["header"] as? [String: Any]
        XCTAssertNil(header?["appkey"], "Tingwu: no appkey")
    }

    func testWrongTokenIsForbidden() throws {
        let server = try ReferenceServer(["--api-key", Self.token])
        let session = try SpeechStreamingSession(configuration: configuration(server, token: "wrong-token-99"))
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        let error = try XCTUnwrap(recorder.waitForError())
        XCTAssertEqual(error.code, .forbidden)
        XCTAssertEqual(error.httpStatus, 403)
        XCTAssertFalse(error.description.contains("wrong-token-99"), "the token stays secret: \(error)")
    }

    func testSecondTaskOpensANewConnectionAndContextUpdatesAreRefused() throws {
        let server = try ReferenceServer(["--api-key", Self.token])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let recorder = EventRecorder()
        session.delegate = recorder
        for round in 1...2 {
            let before = recorder.events.count
            try session.start()
            XCTAssertThrowsError(try session.updateContext([ContextMessage(role: .user, text: "x")])) {
                XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidState)
            }
            TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
            session.stop()
            guard case .completed = recorder.waitForEnd(after: before) else { return XCTFail("round \(round): \(recorder.errors)") }
        }
        XCTAssertEqual(recorder.sentenceEnds.count, 2 * TestAudio.bursts.count)
        XCTAssertEqual(server.log().filter { $0["kind"] as? String == "open" }.count, 2, "one task per NLS connection")
    }
}
