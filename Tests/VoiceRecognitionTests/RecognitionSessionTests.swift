import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition
import XCTest

/// The async API: start, push from another thread, read `events`, finish. And what the front end is worth to a
/// real recognizer (the reference server's PocketSphinx) on the double-talk vector.
final class RecognitionSessionTests: XCTestCase {
    struct Heard {
        let text: String
        let wordErrorRate: Double
        let summary: RecognitionSummary
        let events: [RecognitionEvent]
    }

    /// Streams the double-talk vector (mic, and the reference while playing) through a session and returns what
    /// the recognizer heard, scored against the near end's transcript.
    func recognize(_ server: ReferenceServer, echoCancellation: FrontEndConfiguration.EchoCancellation,
                   format: AudioFormat = .pcm) async throws -> Heard {
        let mic = try TestVectors.int16(RecognitionFlowTests.vector).samples
        let reference = try TestVectors.int16("farend_16k.wav").samples
        var frontEnd = FrontEndConfiguration()
        frontEnd.echoCancellation = echoCancellation
        let session = try RecognitionSession(configuration: RecognitionConfiguration(
            frontEnd: frontEnd, service: Wire.dashScope.service(server), audioFormat: format, queueFullPolicy: .wait,
            reportsAudio: false))
        let stream = session.events // made on first access: before start()
        let collector = Task { await stream.reduce(into: [RecognitionEvent]()) { $0.append($1) } }
        let started = try await session.start()
        XCTAssertFalse(started.taskId.isEmpty)
        session.setPlaying(true)
        let pusher = Thread { Feed.push(session.core, mic: mic[...], reference: reference[...]) }
        pusher.start()
        while !pusher.isFinished { try await Task.sleep(for: .milliseconds(20)) }
        let summary = try await session.finish()
        let events = await collector.value
        let words = try Self.nearEndWords()
        return Heard(text: summary.text, wordErrorRate: WordErrorRate.of(reference: words, hypothesis: WordErrorRate.words(summary.text)),
                     summary: summary, events: events)
    }

    static func nearEndWords() throws -> [String] {
        let utterances = try TestVectors.entry("nearend_16k.wav")["utterances"] as! [[String: Any]]
        return utterances.compactMap { $0["text"] as? String }.flatMap(WordErrorRate.words)
    }

    func testEventsEndWithTheSummaryFinishReturns() async throws {
        let server = try ReferenceServer()
        let heard = try await recognize(server, echoCancellation: FrontEndConfiguration.defaultEchoCancellation, format: .opus)
        guard case .completed(let last) = heard.events.last else { return XCTFail("\(String(describing: heard.events.last))") }
        XCTAssertEqual(last.sentences, heard.summary.sentences)
        XCTAssertFalse(heard.events.contains { if case .audio = $0 { true } else { false } }, "reportsAudio false")
        XCTAssertTrue(heard.events.contains { if case .speechStarted = $0 { true } else { false } })
        XCTAssertTrue(heard.events.contains { if case .telemetry = $0 { true } else { false } })
        XCTAssertTrue(heard.events.contains { if case .level = $0 { true } else { false } })
        XCTAssertGreaterThan(heard.summary.statistics.audioBytesSent, 0)
    }

    /// PocketSphinx hears the user far better through the front end than from the raw mic (where the played
    /// answer's words count as insertions).
    func testTheFrontEndLowersTheWordErrorRate() async throws {
        let server = try ReferenceServer(["--recognizer", "pocketsphinx"])
        let raw = try await recognize(server, echoCancellation: .off)
        let processed = try await recognize(server, echoCancellation: FrontEndConfiguration.defaultEchoCancellation)
        let report = String(format: "WER raw mic %.2f ('%@'), through the front end %.2f ('%@')",
                            raw.wordErrorRate, raw.text, processed.wordErrorRate, processed.text)
        print(report)
        XCTAssertLessThan(processed.wordErrorRate, raw.wordErrorRate - 0.3, report)
        XCTAssertLessThan(processed.wordErrorRate, 0.8, report)
    }
}
