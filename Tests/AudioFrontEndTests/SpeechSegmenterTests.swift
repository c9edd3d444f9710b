import XCTest
@testable import AudioFrontEnd

/// The segmenter's timing on synthetic decision sequences: it is driven by frame counts only, so every boundary
/// is checked to the frame.
final class SpeechSegmenterTests: XCTestCase {
    typealias Event = SpeechSegmenter.Event

    /// A decision sequence from runs: (isSpeech, milliseconds), each a multiple of 10.
    private func decisions(_ runs: [(Bool, Int)]) -> [Bool] {
        runs.flatMap { [Bool](repeating: $0.0, count: $0.1 / 10) }
    }

    /// Feeds `decisions`, then `finish()`; returns each event with the index of the frame that returned it
    /// (`decisions.count` for the event of `finish()`).
    private func run(_ configuration: SpeechSegmenter.Configuration, _ decisions: [Bool]) throws -> [(frame: Int, event: Event)] {
        var segmenter = try SpeechSegmenter(configuration)
        var events: [(frame: Int, event: Event)] = []
        for (i, d) in decisions.enumerated() {
            if let e = segmenter.process(isSpeech: d) { events.append((i, e)) }
        }
        if let e = segmenter.finish() { events.append((decisions.count, e)) }
        return events
    }

    private func start(_ e: Event) -> (at: Int, detected: Int)? {
        if case .speechStart(let at, let detected) = e { return (at.frame, detected.frame) }
        return nil
    }

    private func end(_ e: Event) -> (at: Int, detected: Int, reason: SpeechSegmenter.EndReason)? {
        if case .speechEnd(let at, let detected, let reason) = e { return (at.frame, detected.frame, reason) }
        return nil
    }

    func testOnsetStartsOnTheFrameThatCompletesItAndIsBackDated() throws {
        for onset in [10, 30, 60, 100, 250, 500] {
            let config = SpeechSegmenter.Configuration(onsetMilliseconds: onset, endSilenceMilliseconds: 200)
            let events = try run(config, decisions([(false, 200), (true, 800), (false, 400)]))
            let context = "onset \(onset) ms"
            XCTAssertEqual(events.count, 2, context)
            guard let first = events.first, let s = start(first.event) else { return XCTFail("\(context): no start") }
            XCTAssertEqual(first.frame, 20 + onset / 10 - 1, "\(context): emitted on the frame completing the onset")
            XCTAssertEqual(s.at, 20, "\(context): back-dated to the first speech frame")
            XCTAssertEqual(s.detected, 20 + onset / 10, context)
            if case .speechStart(let at, _) = first.event {
                XCTAssertEqual(at.sample, 20 * 160, context)
                XCTAssertEqual(at.milliseconds, 200, context)
            }
        }
    }

    func testEveryEndSilenceEndsExactlyThenAndIsBackDatedToTheLastSpeech() throws {
        for endSilence in [200, 210, 500, 700, 800, 1300, 2000, 6000] {
            let config = SpeechSegmenter.Configuration(endSilenceMilliseconds: endSilence)
            let events = try run(config, decisions([(false, 100), (true, 1000), (false, endSilence + 500)]))
            let context = "end silence \(endSilence) ms"
            XCTAssertEqual(events.count, 2, context)
            guard events.count == 2, let e = end(events[1].event) else { return XCTFail("\(context): no end") }
            XCTAssertEqual(e.at, 110, "\(context): back-dated to the end of the last speech frame")
            XCTAssertEqual(events[1].frame, 110 + endSilence / 10 - 1, "\(context): emitted on the frame completing it")
            XCTAssertEqual(e.detected, 110 + endSilence / 10, context)
            XCTAssertEqual(e.reason, .silence, context)
            // One frame less silence: no end yet (closed only by finish).
            let short = try run(config, decisions([(false, 100), (true, 1000), (false, endSilence - 10)]))
            XCTAssertEqual(short.count, 2, context)
            XCTAssertEqual(short.last.flatMap { end($0.event) }?.reason, .endOfStream, "\(context) minus 10 ms")
        }
    }

    func testPositionsAreInSamplesAtTheConfiguredRate() throws {
        for rate in [8000, 16000, 44100, 48000] {
            let config = SpeechSegmenter.Configuration(sampleRate: rate, onsetMilliseconds: 50, endSilenceMilliseconds: 300)
            let events = try run(config, decisions([(false, 1230), (true, 700), (false, 300)]))
            guard events.count == 2, case .speechStart(let at, _) = events[0].event,
                  case .speechEnd(let endAt, let detected, _) = events[1].event else {
                return XCTFail("\(rate) Hz: expected one segment, got \(events.map(\.event))")
            }
            XCTAssertEqual(at.sample, 123 * rate / 100, "\(rate) Hz start")
            XCTAssertEqual(at.milliseconds, 1230, "\(rate) Hz start")
            XCTAssertEqual(endAt.sample, 193 * rate / 100, "\(rate) Hz end")
            XCTAssertEqual(endAt.milliseconds, 1930, "\(rate) Hz end")
            XCTAssertEqual(detected.milliseconds, 2230, "\(rate) Hz end detected")
        }
    }

    func testBlipShorterThanOnsetStartsNothing() throws {
        for onset in [30, 60, 100, 200] {
            let config = SpeechSegmenter.Configuration(onsetMilliseconds: onset, endSilenceMilliseconds: 200)
            let blips = decisions([(false, 100), (true, onset - 10), (false, 50), (true, onset - 10), (false, 500)])
            XCTAssertTrue(try run(config, blips).isEmpty, "onset \(onset) ms: blips of \(onset - 10) ms")
            let exact = decisions([(false, 100), (true, onset), (false, 500)])
            XCTAssertEqual(try run(config, exact).count, 2, "onset \(onset) ms: a run of exactly the onset starts")
        }
    }

    func testGapShorterThanEndSilenceKeepsOneSegment() throws {
        for endSilence in [200, 700, 1300, 6000] {
            let config = SpeechSegmenter.Configuration(endSilenceMilliseconds: endSilence)
            let context = "end silence \(endSilence) ms"
            let joined = try run(config, decisions([(true, 500), (false, endSilence - 10), (true, 400), (false, endSilence)]))
            XCTAssertEqual(joined.count, 2, "\(context), gap \(endSilence - 10) ms: one segment")
            XCTAssertEqual(joined.last.flatMap { end($0.event) }?.at, 50 + (endSilence - 10) / 10 + 40, context)
            let split = try run(config, decisions([(true, 500), (false, endSilence), (true, 400), (false, endSilence)]))
            XCTAssertEqual(split.count, 4, "\(context), gap \(endSilence) ms: two segments")
            XCTAssertEqual(split.compactMap { start($0.event)?.at }, [0, 50 + endSilence / 10], context)
        }
    }

    func testBlipInsideTheSilenceNeitherExtendsNorRestartsIt() throws {
        let config = SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 500)
        // Speech to 1.0 s, a 50 ms blip at 1.2 s, silence: the end stays at 1.0 s and fires at 1.5 s.
        let events = try run(config, decisions([(true, 1000), (false, 200), (true, 50), (false, 1000)]))
        XCTAssertEqual(events.count, 2)
        guard let e = events.last.flatMap({ end($0.event) }) else { return XCTFail("no end") }
        XCTAssertEqual(e.at, 100)
        XCTAssertEqual(e.detected, 150)
        // A run of the full onset after the gap does extend it.
        let extended = try run(config, decisions([(true, 1000), (false, 200), (true, 100), (false, 1000)]))
        XCTAssertEqual(extended.last.flatMap { end($0.event) }?.at, 130)
        XCTAssertEqual(extended.count, 2)
    }

    func testMaximumSegmentLengthSplitsLongSpeech() throws {
        let config = SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300,
                                                   maximumSegmentMilliseconds: 1000)
        let events = try run(config, decisions([(false, 50), (true, 2500), (false, 400)]))
        let summary = events.map { e -> String in
            if let s = start(e.event) { return "start \(s.at)@\(e.frame)" }
            let x = end(e.event)!
            return "end \(x.at)@\(e.frame) \(x.reason)"
        }
        XCTAssertEqual(summary, ["start 5@14", "end 105@104 maximumLength", "start 105@105", "end 205@204 maximumLength",
                                 "start 205@205", "end 255@284 silence"])
        // Without a limit: one segment.
        XCTAssertEqual(try run(.init(onsetMilliseconds: 100, endSilenceMilliseconds: 300),
                               decisions([(false, 50), (true, 2500), (false, 400)])).count, 2)
    }

    func testFinishAndResetStartOver() throws {
        var segmenter = try SpeechSegmenter(.init(onsetMilliseconds: 30, endSilenceMilliseconds: 200))
        for _ in 0..<10 { _ = segmenter.process(isSpeech: true) }
        XCTAssertTrue(segmenter.isInSegment)
        guard case .speechEnd(let at, _, .endOfStream)? = segmenter.finish() else { return XCTFail("finish: no end") }
        XCTAssertEqual(at.frame, 10)
        XCTAssertNil(segmenter.finish())
        segmenter.reset()
        XCTAssertEqual(segmenter.framesProcessed, 0)
        var first: Event?
        for _ in 0..<3 { first = segmenter.process(isSpeech: true) ?? first }
        guard case .speechStart(let start, _)? = first else { return XCTFail("no start after reset") }
        XCTAssertEqual(start.frame, 0)
    }

    /// Random sequences (seeded): structural invariants of the event stream.
    func testInvariantsOnRandomDecisionSequences() throws {
        var state: UInt64 = 0x5EED_0001
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        for trial in 0..<40 {
            let onset = [10, 30, 100][trial % 3] / 10, endSilence = [200, 300, 700][trial % 3] / 10
            let config = SpeechSegmenter.Configuration(onsetMilliseconds: onset * 10, endSilenceMilliseconds: endSilence * 10,
                                                       maximumSegmentMilliseconds: trial % 4 == 0 ? 2000 : nil)
            var d: [Bool] = []
            while d.count < 3000 { d += [Bool](repeating: next() % 2 == 0, count: Int(next() % 60) + 1) }
            let events = try run(config, d)
            let context = "trial \(trial) (seed 0x5EED0001, onset \(onset * 10) ms, end \(endSilence * 10) ms)"
            var open: Int?, lastEnd = 0
            for (frame, event) in events {
                if let s = start(event) {
                    XCTAssertNil(open, "\(context): start inside a segment at \(frame)")
                    XCTAssertGreaterThanOrEqual(s.at, lastEnd, "\(context): overlapping segments")
                    XCTAssertTrue(d[s.at...frame].allSatisfy { $0 }, "\(context): start at \(s.at) without speech")
                    open = s.at
                } else if let e = end(event) {
                    guard let begin = open else { XCTFail("\(context): end without start at \(frame)"); continue }
                    XCTAssertGreaterThan(e.at, begin, "\(context): empty segment")
                    XCTAssertTrue(d[e.at - 1], "\(context): segment ends after a non-speech frame")
                    if e.reason == .silence { // exact, or late by a blip shorter than the onset
                        XCTAssertGreaterThanOrEqual(e.detected - e.at, endSilence, "\(context): end silence")
                        XCTAssertLessThan(e.detected - e.at, endSilence + onset, "\(context): end silence")
                        var longest = 0, current = 0
                        for x in d[e.at..<e.detected] { current = x ? current + 1 : 0; longest = max(longest, current) }
                        XCTAssertLessThan(longest, onset, "\(context): speech of the onset inside the end silence")
                    }
                    open = nil
                    lastEnd = e.at
                }
            }
            XCTAssertNil(open, "\(context): finish left a segment open")
        }
    }

    func testBadSettingsThrowErrorsNamingTheProblem() {
        let cases: [(SpeechSegmenter.Configuration, AudioFrontEndError.Code, String)] = [
            (.init(endSilenceMilliseconds: 190), .invalidConfiguration, "max_sentence_silence"),
            (.init(endSilenceMilliseconds: 6010), .invalidConfiguration, "max_sentence_silence"),
            (.init(endSilenceMilliseconds: 0), .invalidConfiguration, "max_sentence_silence"),
            (.init(endSilenceMilliseconds: 205), .invalidConfiguration, "multiple of 10"),
            (.init(onsetMilliseconds: 0), .invalidConfiguration, "onsetMilliseconds"),
            (.init(onsetMilliseconds: 510), .invalidConfiguration, "onsetMilliseconds"),
            (.init(onsetMilliseconds: 35), .invalidConfiguration, "multiple of 10"),
            (.init(maximumSegmentMilliseconds: 500), .invalidConfiguration, "maximumSegmentMilliseconds"),
            (.init(sampleRate: 22050), .unsupportedSampleRate, "22050"),
            (.init(sampleRate: 4000), .unsupportedSampleRate, "4000"),
        ]
        for (configuration, code, word) in cases {
            XCTAssertThrowsError(try SpeechSegmenter(configuration), "\(configuration)") { error in
                let e = error as? AudioFrontEndError
                XCTAssertEqual(e?.code, code, "\(configuration): \(error)")
                XCTAssertTrue(e?.message.contains(word) ?? false, "\(configuration): '\(error)' should name \(word)")
            }
        }
        XCTAssertNoThrow(try SpeechSegmenter(.init(endSilenceMilliseconds: 200)))
        XCTAssertNoThrow(try SpeechSegmenter(.init(endSilenceMilliseconds: 6000)))
    }
}
