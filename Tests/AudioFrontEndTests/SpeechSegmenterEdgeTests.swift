import XCTest
@testable import AudioFrontEnd

/// The segmenter's edge search (``FrontEndConfiguration/SpeechEdges``): a start back-dated over the frames just
/// before it that stood above the lower threshold, an end moved on over those after the last speech frame, both
/// within their limits, across short gaps, and never into the previous segment.
final class SpeechSegmenterEdgeTests: XCTestCase {
    /// Runs of (speech, edge, count); returns the (start, end) frames of the segments.
    private func segments(_ runs: [(Bool, Bool, Int)], onset: SpeechSegmenter.Onset) throws -> [(start: Int, end: Int)] {
        var segmenter = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300))
        var out: [(start: Int, end: Int)] = []
        var start: Int?
        func take(_ event: SpeechSegmenter.Event?) {
            switch event {
            case .speechStart(let at, _)?: start = at.frame
            case .speechEnd(let at, _, _)?: out.append((start ?? -1, at.frame)); start = nil
            case nil: break
            }
        }
        for (speech, edge, count) in runs {
            for _ in 0..<count { take(segmenter.process(isSpeech: speech, detectorSpeech: speech, onset: onset, edge: edge)) }
        }
        take(segmenter.finish())
        return out
    }

    private func onset(lead: Int, trail: Int, gap: Int = 0) -> SpeechSegmenter.Onset {
        SpeechSegmenter.Onset(frames: 10, leadFrames: lead, trailFrames: trail, edgeGapFrames: gap)
    }

    func testStartAndEndMoveOverEdgeFramesWithinTheirLimits() throws {
        // noise 50, edge 8, speech 20, edge 6, noise 60: the segment covers the edge frames on both sides.
        let input: [(Bool, Bool, Int)] = [(false, false, 50), (false, true, 8), (true, true, 20), (false, true, 6),
                                          (false, false, 60)]
        let wide = try segments(input, onset: onset(lead: 20, trail: 20))
        XCTAssertEqual(wide.map(\.start), [50])
        XCTAssertEqual(wide.map(\.end), [84])
        let tight = try segments(input, onset: onset(lead: 5, trail: 3))
        XCTAssertEqual(tight.map(\.start), [53])
        XCTAssertEqual(tight.map(\.end), [81])
        let off = try segments(input, onset: onset(lead: 0, trail: 0))
        XCTAssertEqual(off.map(\.start), [58])
        XCTAssertEqual(off.map(\.end), [78])
    }

    func testEdgeRunsSurviveGapsUpToTheLimit() throws {
        // Edge frames with a 2-frame gap before and after the speech.
        let input: [(Bool, Bool, Int)] = [(false, false, 50), (false, true, 4), (false, false, 2), (false, true, 4),
                                          (true, true, 20), (false, true, 3), (false, false, 2), (false, true, 3),
                                          (false, false, 60)]
        let bridged = try segments(input, onset: onset(lead: 30, trail: 30, gap: 2))
        XCTAssertEqual(bridged.map(\.start), [50])
        XCTAssertEqual(bridged.map(\.end), [88])
        let broken = try segments(input, onset: onset(lead: 30, trail: 30, gap: 1))
        XCTAssertEqual(broken.map(\.start), [56])
        XCTAssertEqual(broken.map(\.end), [83])
    }

    func testLeadNeverReachesIntoThePreviousSegmentAndTrailEndsAtSpeech() throws {
        // Two segments separated by 35 edge-only frames (more than the 30-frame end silence): the first ends 10
        // frames into them (its trail limit); the second's lead may not reach before that end.
        let input: [(Bool, Bool, Int)] = [(false, false, 20), (true, true, 20), (false, true, 35), (true, true, 20),
                                          (false, false, 60)]
        let result = try segments(input, onset: onset(lead: 100, trail: 10))
        XCTAssertEqual(result.map(\.start), [20, 50])
        XCTAssertEqual(result.map(\.end), [50, 95])
    }

    func testWithoutALeadLimitNothingIsTrackedNotEvenSpeechBlips() throws {
        // A 3-frame blip, 2 frames of silence, then speech: with the search on (a lead limit) the blip counts as an
        // edge run across the gap; with the search off (the front end's onset on frames where it does not run)
        // the start is the onset's first frame, as without edges, whatever the gap setting says.
        let input: [(Bool, Bool, Int)] = [(false, false, 50), (true, false, 3), (false, false, 2), (true, false, 20),
                                          (false, false, 60)]
        XCTAssertEqual(try segments(input, onset: onset(lead: 20, trail: 20, gap: 3)).map(\.start), [50])
        XCTAssertEqual(try segments(input, onset: onset(lead: 0, trail: 0, gap: 3)).map(\.start), [55])
        // After the segment: a blip 2 frames after the last speech frame extends the end only with a trail limit.
        let tail: [(Bool, Bool, Int)] = [(false, false, 50), (true, false, 25), (false, false, 2), (true, false, 3),
                                         (false, false, 60)]
        XCTAssertEqual(try segments(tail, onset: onset(lead: 20, trail: 20, gap: 3)).map(\.end), [80])
        XCTAssertEqual(try segments(tail, onset: onset(lead: 0, trail: 0, gap: 3)).map(\.end), [75])
    }

    func testEdgeFramesAloneStartNothing() throws {
        let result = try segments([(false, false, 20), (false, true, 200), (false, false, 40)], onset: onset(lead: 30, trail: 30))
        XCTAssertTrue(result.isEmpty, "\(result)")
    }
}
