import Foundation
import SpeechStreaming
import SpeechSynthesis
import XCTest

/// Every failure ends the task in exactly one typed error with the server's code and message, within its timeout.
final class SynthesisFailureTests: XCTestCase {
    func configuration(_ url: String, key: String = "sk-test-0123", voice: String = "espeak-en-us",
                       connection: ConnectionOptions = ConnectionOptions()) -> SynthesisConfiguration {
        SynthesisConfiguration(url: url, apiKey: key, parameters: SynthesisParameters(voice: voice, sampleRate: 16000),
                               connection: connection)
    }

    /// Starts a task, sends `text` (if any) and finishes; returns the one error and every event.
    func failure(_ configuration: SynthesisConfiguration, text: String? = "Hello there. How are you?",
                 finish: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws
        -> (SpeechStreamingError?, SynthesisRecorder) {
        let session = try SpeechSynthesisSession(configuration: configuration)
        defer { session.close() }
        let recorder = SynthesisRecorder()
        session.delegate = recorder
        try session.requestStart()
        if let text { try? session.send(text: text) } // invalidState if the task already failed (refused connection)
        if finish { session.requestFinish() }
        guard case .error(let error) = recorder.waitForEnd(timeout: 30) else {
            XCTFail("no error: \(recorder.events.count) events", file: file, line: line)
            return (nil, recorder)
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(recorder.errors.count, 1, "exactly one error", file: file, line: line)
        return (error, recorder)
    }

    func testUnknownVoiceIsTaskFailed418() throws {
        let server = try SynthesisServer()
        let (error, _) = try failure(configuration(server.url, voice: "nobody"))
        XCTAssertEqual(error?.code, .taskFailed)
        XCTAssertEqual(error?.serverCode, "InvalidParameter")
        XCTAssertEqual(error?.message, "[tts:]Engine return error code: 418")
        XCTAssertTrue(error?.rawJSON?.contains("task-failed") ?? false)
    }

    func testUnknownVoiceThroughTheAsyncStart() async throws {
        let server = try SynthesisServer()
        let session = try SpeechSynthesisSession(configuration: configuration(server.url, voice: "nobody"))
        do {
            try await session.start()
            XCTFail("start succeeded")
        } catch let error as SpeechStreamingError {
            XCTAssertEqual(error.serverCode, "InvalidParameter")
        }
        session.close()
    }

    func testTheNoTextGapReachesTheAppAsTaskFailed() throws {
        let server = try SynthesisServer(["--no-text-timeout", "1"])
        let began = Date()
        let (error, recorder) = try failure(configuration(server.url), text: nil, finish: false)
        XCTAssertEqual(error?.code, .taskFailed)
        XCTAssertEqual(error?.message, "request timeout after 1 seconds.")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(began), 0.9)
        XCTAssertTrue(isStarted(recorder.events[0]))
    }

    func testCloseMidStreamIsConnectionClosed() throws {
        for how in ["tcp", "ws"] {
            let server = try SynthesisServer(["--fault", "close-mid-stream:after_bytes=30000,how=\(how)"])
            let (error, recorder) = try failure(configuration(server.url),
                                                text: String(repeating: "This sentence is long enough. ", count: 10))
            XCTAssertEqual(error?.code, .connectionClosed, how)
            XCTAssertGreaterThan(recorder.audio.count, 0, how)
            XCTAssertLessThan(recorder.audio.count, 30000, how)
        }
    }

    func testServerFaultsEachGiveTheirError() throws {
        let fast = ConnectionOptions(startTimeout: .seconds(1), finishTimeout: .seconds(2), pingInterval: .milliseconds(300),
                                     responseTimeout: .seconds(1))
        // The faults that fire a while after task-started need a task still open then: no finish-task.
        let cases: [(String, SpeechStreamingError.Code, Bool)] = [
            ("no-task-started", .startTimeout, true), ("freeze:after_ms=100", .serverNotResponding, false),
            ("malformed:after_ms=50", .malformedMessage, false), ("oversized:after_ms=50", .oversizedMessage, false),
            ("task-failed:after_ms=50", .taskFailed, false), ("slow-finish:delay_ms=5000", .finishTimeout, true),
        ]
        for (fault, code, finish) in cases {
            let server = try SynthesisServer(["--fault", fault])
            let began = Date()
            let (error, _) = try failure(configuration(server.url, connection: fast), finish: finish)
            XCTAssertEqual(error?.code, code, fault)
            XCTAssertLessThan(Date().timeIntervalSince(began), 8, fault)
        }
    }

    /// The hostile server's connection-level modes (Scripts/hostile-server), which act before any audio.
    func testHostileServerModes() throws {
        let fast = ConnectionOptions(connectTimeout: .seconds(1), startTimeout: .seconds(1))
        let cases: [(String, SpeechStreamingError.Code)] = [
            ("accept-close", .connectionFailed), ("bad-accept", .handshakeFailed), ("http:status=500", .handshakeFailed),
            ("slow-headers", .connectTimeout), ("no-start", .startTimeout), ("wrong-task-id", .protocolViolation),
        ]
        for (mode, code) in cases {
            let server = try SynthesisServer(["--mode", mode], script: "Scripts/hostile-server/hostile_server.py")
            let began = Date()
            let (error, _) = try failure(configuration(server.url, connection: fast), finish: false)
            XCTAssertEqual(error?.code, code, mode)
            XCTAssertLessThan(Date().timeIntervalSince(began), 5, mode)
        }
    }

    func testRefusedAndUnauthorizedConnections() throws {
        let (refused, _) = try failure(configuration("ws://127.0.0.1:9/api-ws/v1/inference"))
        XCTAssertEqual(refused?.code, .connectionRefused)
        let key = "sk-right-key-4567"
        let server = try SynthesisServer(["--api-key", key])
        let wrong = "sk-wrong-key-8910"
        let (error, _) = try failure(configuration(server.url, key: wrong))
        XCTAssertEqual(error?.code, .unauthorized)
        XCTAssertFalse("\(error!)".contains(wrong))
    }

    func testTheKeyIsRedactedFromEveryEvent() async throws {
        let key = "sk-secret-5555"
        let server = try SynthesisServer(["--api-key", key])
        let session = try SpeechSynthesisSession(configuration: configuration(server.url, key: key))
        let recorder = SynthesisRecorder()
        session.delegate = recorder
        try await session.start()
        try session.send(text: "My key is \(key) today.")
        let completed = try await session.finish()
        let texts = recorder.sentences.map { ($0.originalText ?? "") + $0.rawJSON } + [completed.rawJSON]
        XCTAssertTrue(texts.allSatisfy { !$0.contains(key) })
        XCTAssertTrue(recorder.sentences[0].originalText?.contains("***") ?? false)
        XCTAssertFalse(String(describing: SynthesisConfiguration(url: server.url, apiKey: key)).contains(key))
        session.close()
    }
}
