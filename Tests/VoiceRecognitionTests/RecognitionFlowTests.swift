import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition
import XCTest

/// The whole path on the bundled double-talk vector (the device plays an answer while the user talks over it):
/// mic and reference pushed 10 ms at a time → front end → PCM or Ogg Opus → the reference server (both
/// protocols, its deterministic recognizer, which segments by energy) → events.
final class RecognitionFlowTests: XCTestCase {
    static let vector = "doubletalk_ser-5db_16k.wav"

    struct Outcome {
        let log: EventLog
        let mic: [Int16]
        let entry: TestVectors.Entry
    }

    func run(_ wire: Wire, _ format: AudioFormat, echoCancellation: FrontEndConfiguration.EchoCancellation? = nil,
             file: StaticString = #filePath, line: UInt = #line) throws -> Outcome {
        let server = try ReferenceServer()
        let mic = try TestVectors.int16(Self.vector).samples
        let reference = try TestVectors.int16("farend_16k.wav").samples
        var frontEnd = FrontEndConfiguration()
        if let echoCancellation { frontEnd.echoCancellation = echoCancellation }
        let core = try RecognitionCore(configuration: RecognitionConfiguration(
            frontEnd: frontEnd, service: wire.service(server), audioFormat: format, queueFullPolicy: .wait))
        let log = EventLog()
        log.attach(to: core)
        try core.start()
        core.setPlaying(true)
        XCTAssertEqual(Feed.push(core, mic: mic[...], reference: reference[...]), 0, "mic refused", file: file, line: line)
        try core.finish()
        let end = log.waitForEnd(timeout: 90)
        XCTAssertNotNil(end, "\(wire) \(format): no end event", file: file, line: line)
        return Outcome(log: log, mic: mic, entry: try TestVectors.entry(Self.vector))
    }

    /// Mic power over processed power on the far-end-only spans after the canceller's first 3 s, dB. The AEC
    /// data lags the mic by the reported processing delay: each span is read that much later in it.
    static func farEndOnlyERLE(_ outcome: Outcome) -> Double {
        let audio = outcome.log.audio
        let delay = outcome.log.summary?.frontEnd?.processingDelay.samples ?? 0
        var micPower = 0.0, outPower = 0.0
        for span in outcome.entry["farend_only"] as! [[Double]] where span[0] >= 3 {
            let range = Int(span[0] * 16000)..<min(Int(span[1] * 16000), audio.count - delay)
            micPower += SignalMetrics.power(outcome.mic, range) * Double(range.count)
            outPower += SignalMetrics.power(audio, (range.lowerBound + delay)..<(range.upperBound + delay)) * Double(range.count)
        }
        return SignalMetrics.decibels(micPower / outPower)
    }

    /// Share of the recognized sentences' time that falls in the near end's speech (what the user said).
    static func nearEndShare(_ results: [RecognitionResult], _ entry: TestVectors.Entry) -> Double {
        let speech = entry.speechIntervals.map { Int($0.start * 1000)..<Int($0.end * 1000) }
        var inside = 0, total = 0
        for result in results {
            let span = result.beginMilliseconds..<max(result.beginMilliseconds, result.endMilliseconds ?? result.beginMilliseconds)
            total += span.count
            inside += speech.map { $0.clamped(to: span).count }.reduce(0, +)
        }
        return total == 0 ? 0 : Double(inside) / Double(total)
    }

    func check(_ outcome: Outcome, _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let events = outcome.log.events
        guard let summary = outcome.log.summary else {
            return XCTFail("\(label): ended with \(String(describing: events.last))", file: file, line: line)
        }
        // Order: started before every result; exactly one terminal event, the last.
        let startedAt = events.firstIndex { if case .started = $0 { true } else { false } }
        let firstResult = events.firstIndex {
            switch $0 { case .partialResult, .finalResult, .sentenceStart: true; default: false }
        }
        XCTAssertNotNil(startedAt, label, file: file, line: line)
        if let startedAt, let firstResult { XCTAssertLessThan(startedAt, firstResult, label, file: file, line: line) }
        XCTAssertEqual(events.filter(\.isTerminal).count, 1, label, file: file, line: line)
        XCTAssertEqual(summary.ending, .finished, label, file: file, line: line)
        XCTAssertEqual(outcome.log.threadCount, 1, "\(label): every event on the session's one event thread", file: file, line: line)
        // The recognizer heard the near end: sentences lie in the user's speech, not in the played answer.
        let finals = outcome.log.finals
        // The summary keeps each final without its raw JSON (the events carry it).
        XCTAssertEqual(summary.sentences, finals.map { var kept = $0; kept.rawJSON = ""; return kept }, label, file: file, line: line)
        XCTAssertTrue(summary.sentences.allSatisfy { $0.rawJSON.isEmpty }, label, file: file, line: line)
        XCTAssertGreaterThanOrEqual(finals.count, 3, "\(label): \(finals.map(\.text))", file: file, line: line)
        let share = Self.nearEndShare(finals, outcome.entry)
        XCTAssertGreaterThan(share, 0.8, "\(label): sentence time in near-end speech", file: file, line: line)
        // AEC data: as long as the mic (lagging it by the reported processing delay), echo removed on the
        // far-end-only spans.
        XCTAssertEqual(outcome.log.audio.count, outcome.mic.count, label, file: file, line: line)
        let erle = Self.farEndOnlyERLE(outcome)
        XCTAssertGreaterThan(erle, 20, "\(label): far-end-only ERLE", file: file, line: line)
        XCTAssertEqual(summary.delayMilliseconds ?? 0, 120, accuracy: 15, "\(label): delay found", file: file, line: line)
        XCTAssertGreaterThanOrEqual(summary.speechSegments.count, 3, label, file: file, line: line)
        // The feed pushes again what a full mic ring refused (a loaded machine): those bytes are counted as refused
        // by the front end, which cannot know, but nothing is lost (every sample was taken: micSamplesPushed).
        var drops = summary.drops
        drops.frontEnd.micRefusedBytes = 0
        XCTAssertTrue(drops.isEmpty, "\(label): \(summary.drops)", file: file, line: line)
        XCTAssertEqual(summary.frontEnd?.micSamplesPushed, outcome.mic.count, label, file: file, line: line)
        XCTAssertNotNil(summary.rawJSON, label, file: file, line: line)
        XCTAssertTrue(finals.allSatisfy { !$0.rawJSON.isEmpty }, label, file: file, line: line)
        // Every event has JSON (NUI's nui_get_all_response): the server's own for results.
        for event in events {
            let parsed = try? JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any]
            XCTAssertNotNil(parsed, "\(label): \(event.name) JSON \(event.json)", file: file, line: line)
            if let raw = event.rawJSON { XCTAssertEqual(event.json, raw, label, file: file, line: line) }
            else { XCTAssertEqual(parsed?["event"] as? String, event.name, label, file: file, line: line) }
        }
        print(String(format: "%@: ERLE far-end only %.1f dB (telemetry median %.1f dB), delay %.0f ms, %d sentences "
                     + "(%.0f%% in near-end speech), %d speech segments", label, erle, summary.echoReductionDecibels ?? .nan,
                     summary.delayMilliseconds ?? .nan, finals.count, 100 * share, summary.speechSegments.count))
    }

    func testDashScopePCM() throws { check(try run(.dashScope, .pcm), "DashScope PCM") }
    func testDashScopeOpus() throws { check(try run(.dashScope, .opus), "DashScope Opus") }
    func testNLSPCM() throws { check(try run(.nls, .pcm), "NLS PCM") }
    func testNLSOpus() throws { check(try run(.nls, .opus), "NLS Opus") }

    /// Without echo cancellation the played answer reaches the recognizer: far more of what it hears is not
    /// the user (the flows above keep above 80 %).
    func testWithoutEchoCancellationTheRecognizerHearsThePlayedAnswer() throws {
        let outcome = try run(.dashScope, .pcm, echoCancellation: .off)
        let share = Self.nearEndShare(outcome.log.finals, outcome.entry)
        XCTAssertLessThan(share, 0.6, "sentences \(outcome.log.finals.map { ($0.beginMilliseconds, $0.endMilliseconds) })")
        XCTAssertLessThan(Self.farEndOnlyERLE(outcome), 3)
    }
}
