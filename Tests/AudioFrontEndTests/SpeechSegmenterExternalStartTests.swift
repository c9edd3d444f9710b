import XCTest
@testable import AudioFrontEnd

/// A segment opened by a decision made outside the segmenter (``SpeechSegmenter/startSegment(framesBack:)``, used
/// for the front end's barge-in decision): back-dated as asked, never into the previous segment, keeping an
/// onset's earlier start, and nothing while a segment is open; the segment then ends on silence as any other.
final class SpeechSegmenterExternalStartTests: XCTestCase {
    private let onset = SpeechSegmenter.Onset(frames: 30, misses: 10, backdateFrames: 40)

    private func segmenter() throws -> SpeechSegmenter {
        try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300))
    }

    private func feed(_ segmenter: inout SpeechSegmenter, speech: Bool, _ count: Int) -> [SpeechSegmenter.Event] {
        (0..<count).compactMap { _ in segmenter.process(isSpeech: speech, detectorSpeech: speech, onset: onset) }
    }

    func testStartsBackDatedAndEndsOnSilence() throws {
        var s = try segmenter()
        XCTAssertEqual(feed(&s, speech: false, 100), [])
        // Frame 99 was the last fed: 20 frames back is frame 79; the event is known at the end of frame 99.
        guard case .speechStart(let at, let detected)? = s.startSegment(framesBack: 20) else { return XCTFail("no start") }
        XCTAssertEqual(at.frame, 79)
        XCTAssertEqual(detected.frame, 100)
        XCTAssertTrue(s.isInSegment)
        XCTAssertNil(s.startSegment(framesBack: 50), "a second start while the segment is open")
        // 30 frames of silence (the end silence) end it at the end of its last speech frame, 99.
        let events = feed(&s, speech: false, 30)
        guard case .speechEnd(let end, _, .silence)? = events.last else { return XCTFail("no end: \(events)") }
        XCTAssertEqual(end.frame, 100)
    }

    func testNeverBeforeThePreviousSegmentEnd() throws {
        var s = try segmenter()
        _ = feed(&s, speech: false, 20)
        _ = feed(&s, speech: true, 40) // frames 20-59: a segment from 20 (its 30-frame onset complete at 49)
        _ = feed(&s, speech: false, 30) // ends at 60, known at 90
        XCTAssertFalse(s.isInSegment)
        _ = feed(&s, speech: false, 5) // last fed: 94
        guard case .speechStart(let at, _)? = s.startSegment(framesBack: 100) else { return XCTFail("no start") }
        XCTAssertEqual(at.frame, 60)
    }

    func testAnOnsetUnderWayKeepsItsEarlierStart() throws {
        var s = try segmenter()
        _ = feed(&s, speech: false, 50)
        // Frames 50-59 speech: an onset of 30 frames under way from 50 (not complete).
        XCTAssertEqual(feed(&s, speech: true, 10), [])
        guard case .speechStart(let at, _)? = s.startSegment(framesBack: 3) else { return XCTFail("no start") }
        XCTAssertEqual(at.frame, 50)
        // A start asked before the onset's keeps its own.
        var t = try segmenter()
        _ = feed(&t, speech: false, 50)
        _ = feed(&t, speech: true, 10)
        guard case .speechStart(let earlier, _)? = t.startSegment(framesBack: 25) else { return XCTFail("no start") }
        XCTAssertEqual(earlier.frame, 34)
    }

    func testWithinTheMaximumLengthAndNotOnASplit() throws {
        var s = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300,
                                                                  maximumSegmentMilliseconds: 1000))
        _ = feed(&s, speech: false, 300)
        // 200 frames back would be longer than the 100-frame maximum: the segment so far is 99 frames, 201-299.
        guard case .speechStart(let at, _)? = s.startSegment(framesBack: 200) else { return XCTFail("no start") }
        XCTAssertEqual(at.frame, 201)
        // Speech to the maximum length: split, and no start asked from outside right after it.
        var t = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300,
                                                                  maximumSegmentMilliseconds: 1000))
        let events = feed(&t, speech: true, 100)
        guard case .speechEnd(_, _, .maximumLength)? = events.last else { return XCTFail("no split: \(events)") }
        XCTAssertNil(t.startSegment(framesBack: 10))
        guard case .speechStart(let next, _)? = feed(&t, speech: true, 1).first else { return XCTFail("no start after the split") }
        XCTAssertEqual(next.frame, 100)
    }

    func testAnOnsetsEarlierStartIsHeldToTheMaximumLength() throws {
        // The review's case: an onset back-dated over a long detector run (the detector hears speech from frame 0,
        // the gate passes it only from 300), so the onset under way starts 150 frames back; a start asked then
        // must still leave the segment under the 100-frame maximum.
        var s = try SpeechSegmenter(SpeechSegmenter.Configuration(onsetMilliseconds: 100, endSilenceMilliseconds: 300,
                                                                  maximumSegmentMilliseconds: 1000))
        let long = SpeechSegmenter.Onset(frames: 30, misses: 10, backdateFrames: 150)
        for _ in 0..<300 { _ = s.process(isSpeech: false, detectorSpeech: true, onset: long) }
        for _ in 0..<10 { XCTAssertNil(s.process(isSpeech: true, detectorSpeech: true, onset: long)) } // last fed: 309
        guard case .speechStart(let at, _)? = s.startSegment(framesBack: 5) else { return XCTFail("no start") }
        XCTAssertEqual(at.frame, 309 - 98, "the 100-frame maximum less two")
    }

    func testNothingBeforeTheFirstFrame() throws {
        var s = try segmenter()
        XCTAssertNil(s.startSegment(framesBack: 0))
        XCTAssertFalse(s.isInSegment)
    }
}
