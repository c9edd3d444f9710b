import XCTest
@testable import AudioFrontEnd

/// The segmenter's per-frame onset rule (what the front end's echo speech gate asks for while the far end plays):
/// a longer onset that survives a few rejected frames, and starts back-dated over the detector's own run.
final class SpeechSegmenterPlaybackOnsetTests: XCTestCase {
    /// Feeds (gated, detector) decision pairs with one onset rule; returns (frame, event) pairs.
    private func run(_ frames: [(gated: Bool, detector: Bool)], onset: SpeechSegmenter.Onset)
        throws -> [(frame: Int, event: SpeechSegmenter.Event)] {
        var segmenter = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 130,
                                                                          endSilenceMilliseconds: 300))
        var events: [(frame: Int, event: SpeechSegmenter.Event)] = []
        for (i, f) in frames.enumerated() {
            if let e = segmenter.process(isSpeech: f.gated, detectorSpeech: f.detector, onset: onset) { events.append((i, e)) }
        }
        return events
    }

    private func frames(_ runs: [(gated: Bool, detector: Bool, count: Int)]) -> [(gated: Bool, detector: Bool)] {
        runs.flatMap { [(gated: Bool, detector: Bool)](repeating: ($0.gated, $0.detector), count: $0.count) }
    }

    func testStrongEvidenceCompletesTheOnsetEarly() throws {
        // 30 frames needed, or 10 with strong evidence: 5 weak frames, then strong ones; the start is the onset's
        // first frame either way.
        var segmenter = try SpeechSegmenter()
        let onset = SpeechSegmenter.Onset(frames: 30, misses: 10, strongFrames: 10)
        var found: (frame: Int, event: SpeechSegmenter.Event)?
        for i in 0..<60 where found == nil {
            let speech = i >= 5
            if let e = segmenter.process(isSpeech: speech, detectorSpeech: speech, onset: onset, strongEvidence: i >= 10) {
                found = (i, e)
            }
        }
        guard case .speechStart(let at, let detected)? = found?.event else { return XCTFail("\(String(describing: found))") }
        XCTAssertEqual(at.frame, 5)
        XCTAssertEqual(detected.frame, 20) // the 10th strong frame is frame 19
        // Strong evidence on frames that are not speech (gated out) does not count: 10 speech frames, 9 misses.
        segmenter.reset()
        var events = 0
        for i in 0..<19 where segmenter.process(isSpeech: i % 2 == 0, detectorSpeech: true, onset: onset,
                                                strongEvidence: i % 2 == 1) != nil { events += 1 }
        XCTAssertEqual(events, 0)
    }

    func testOnsetSurvivesAllowedMissesAndNoMore() throws {
        let onset = SpeechSegmenter.Onset(frames: 40, misses: 10)
        // 20 speech, 10 rejected, 20 speech: 40 speech frames with 10 misses start a segment at the first frame.
        let survived = try run(frames([(false, false, 5), (true, true, 20), (false, true, 10), (true, true, 20),
                                       (false, false, 5)]), onset: onset)
        guard case .speechStart(let at, let detected)? = survived.first?.event else { return XCTFail("\(survived)") }
        XCTAssertEqual(at.frame, 5)
        XCTAssertEqual(detected.frame, 55) // the 40th speech frame is frame 54
        // 11 misses end the onset: the later 20 frames alone are too short.
        let broken = try run(frames([(false, false, 5), (true, true, 20), (false, true, 11), (true, true, 20),
                                     (false, false, 5)]), onset: onset)
        XCTAssertTrue(broken.isEmpty, "\(broken)")
    }

    func testStartIsBackDatedOverTheDetectorRunWithinTheLimit() throws {
        // The detector hears speech from frame 10, the gate passes it from frame 30.
        let input = frames([(false, false, 10), (false, true, 20), (true, true, 20), (false, false, 40)])
        for (limit, expected) in [(0, 30), (10, 20), (40, 10)] {
            let events = try run(input, onset: SpeechSegmenter.Onset(frames: 13, backdateFrames: limit))
            guard case .speechStart(let at, _)? = events.first?.event else { return XCTFail("limit \(limit): \(events)") }
            XCTAssertEqual(at.frame, expected, "limit \(limit)")
        }
    }

    func testOnsetTriedAgainWithinTheDetectorRunBackDatesFromTheFirstTry() throws {
        // The detector hears speech from frame 10 on; the gate passes it from frame 20 for 30 frames, drops it for
        // 10 or 11 frames (11: one miss too many for the first onset), then passes it again. The second onset
        // completes, and its start is the detector run's either way (the knife edge that moved double-talk starts
        // by 400-700 ms between a 16 kHz mic and the same audio at 48 kHz).
        let onset = SpeechSegmenter.Onset(frames: 40, misses: 10, backdateFrames: 40)
        for dropped in [10, 11] {
            let input = frames([(false, false, 10), (false, true, 10), (true, true, 30), (false, true, dropped),
                                (true, true, 80 - dropped), (false, false, 60)])
            let events = try run(input, onset: onset)
            guard case .speechStart(let at, _)? = events.first?.event else { return XCTFail("\(dropped): \(events)") }
            XCTAssertEqual(at.frame, 10, "\(dropped) frames dropped")
        }
        // A broken onset shorter than three quarters of the onset (20 of 40 frames: a burst) does not move the
        // next one's limit: it back-dates 40 frames from its own first frame, 51.
        let burst = frames([(false, false, 10), (false, true, 10), (true, true, 20), (false, true, 11),
                            (true, true, 60), (false, false, 60)])
        guard case .speechStart(let burstStart, _)? = try run(burst, onset: onset).first?.event else { return XCTFail() }
        XCTAssertEqual(burstStart.frame, 11)
        // A new detector run starts afresh: its start is back-dated from its own first onset only.
        let input = frames([(false, false, 10), (false, true, 10), (true, true, 35), (false, false, 11),
                            (false, true, 50), (true, true, 45), (false, false, 60)])
        let events = try run(input, onset: onset)
        guard case .speechStart(let at, _)? = events.first?.event else { return XCTFail("\(events)") }
        XCTAssertEqual(at.frame, 76) // the second run (from frame 66) gated from 116, 40 frames back
    }

    func testBackDatedStartNeverReachesIntoThePreviousSegment() throws {
        // Segment 1 (frames 0-19) ends after 30 frames of silence at frame 49; the detector then runs on from
        // frame 20 while the gate passes again from frame 60: the start may not go before 20.
        let input = frames([(true, true, 20), (false, true, 40), (true, true, 20), (false, false, 40)])
        let events = try run(input, onset: SpeechSegmenter.Onset(frames: 13, backdateFrames: 100))
        let starts = events.compactMap { e -> Int? in
            if case .speechStart(let at, _) = e.event { return at.frame }
            return nil
        }
        XCTAssertEqual(starts, [0, 20])
    }

    func testPublicProcessKeepsTheConfiguredOnset() throws {
        var a = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 130))
        var b = a
        let pattern = (0..<600).map { ($0 / 17) % 3 != 0 || $0 % 29 == 0 }
        for d in pattern {
            XCTAssertEqual(a.process(isSpeech: d), b.process(isSpeech: d, detectorSpeech: d, onset: SpeechSegmenter.Onset(frames: 13)))
        }
    }
}
