@testable import AudioFrontEnd
import XCTest

/// The barge-in decision's per-band excess (``BargeInBands``, ``FrontEndConfiguration/BargeIn/bandWeight``) on
/// synthetic frames, and its re-arming after a decision (what `Scripts/scenarios/bargein.py --after-decision stop`
/// relies on: the device stops the far end, the next answer gets a decision of its own).
final class BargeInBandsTests: XCTestCase {
    /// A 10 ms frame at 16 kHz: tones of (frequency, amplitude) with a phase going on from frame `index`.
    private func frame(_ index: Int, _ tones: [(Double, Double)]) -> [Int16] {
        (0..<160).map { i in
            let t = Double(index * 160 + i) / 16000
            return Int16(tones.reduce(0) { $0 + $1.1 * sin(2 * .pi * $1.0 * t) } * 32767)
        }
    }

    func testATalkerUnderTheEchoStandsAboveItWhereTheEchoIsWeak() {
        let bands = BargeInBands(sampleRate: 16000, frameLength: 160, reverberationMilliseconds: 1000)
        let far: [(Double, Double)] = [(440, 0.3), (880, 0.2)]
        var excess: Float = 0
        for k in 0..<200 {
            let reference = frame(k, far), mic = frame(k, far.map { ($0.0, $0.1 * 0.1) })
            excess = reference.withUnsafeBufferPointer { r in
                mic.withUnsafeBufferPointer { bands.update(mic: $0, reference: r, echoOnly: true) }
            }
        }
        XCTAssertEqual(excess, 0, accuracy: 1, "echo alone: the bands' gains predict it")
        // A talker at 3 kHz, 20 dB under the echo overall (broadband it adds 0.04 dB), high above it in its band.
        for k in 200..<210 {
            let reference = frame(k, far), mic = frame(k, far.map { ($0.0, $0.1 * 0.1) } + [(3000, 0.0036)])
            excess = reference.withUnsafeBufferPointer { r in
                mic.withUnsafeBufferPointer { bands.update(mic: $0, reference: r, echoOnly: false) }
            }
        }
        XCTAssertGreaterThan(excess, 2, "the mean band excess shows the talker")
    }

    /// Echo-only frames, then `talker` counted frames with the band excess given (the broadband excess 0 dB);
    /// returns the deciding talker frame (from 1) or nil.
    private func decidingFrame(bandWeight: Float, bandExcess: Float) -> Int? {
        var settings = FrontEndConfiguration.BargeIn()
        settings.bandWeight = bandWeight
        var detector = BargeInDetector(settings)
        for frame in 0..<300 {
            _ = detector.process(frame: frame, playing: true, speech: false, aboveResidualDecibels: 0,
                                 belowReductionDecibels: 0, level: -50, mic: -40, reference: -20)
        }
        for k in 1...60 where detector.process(frame: 300 + k, playing: true, speech: true, aboveResidualDecibels: 30,
                                               belowReductionDecibels: 30, level: -30, mic: -40, reference: -20,
                                               bandExcess: bandExcess) {
            return k
        }
        return nil
    }

    func testTheBandWeightMixesTheBandExcessIn() {
        XCTAssertNil(decidingFrame(bandWeight: 0, bandExcess: 10), "broadband alone: no excess, no decision")
        XCTAssertEqual(decidingFrame(bandWeight: 1, bandExcess: 10), 8, "the bands alone: as 10 dB broadband")
        // Half and half: 5 dB a frame, 2 dB of evidence each: the 200 ms run (5 dB >= its 4 dB average) decides.
        XCTAssertEqual(decidingFrame(bandWeight: 0.5, bandExcess: 10), 20)
        var settings = FrontEndConfiguration.BargeIn()
        settings.bandWeight = 1.5
        XCTAssertThrowsError(try settings.validate())
    }

    /// After a decision the detector waits for ``FrontEndConfiguration/BargeIn/rearmMilliseconds`` without counted
    /// speech: with the far end stopped (as the SDK stops it) the next talker over the next answer is decided; with
    /// the far end playing on and the talker still counted, no second decision.
    func testRearmsOnceThePlaybackStopped() {
        var detector = BargeInDetector(FrontEndConfiguration.BargeIn())
        var frame = 0
        func feed(_ count: Int, playing: Bool, speech: Bool) -> Int {
            var decisions = 0
            for _ in 0..<count {
                if detector.process(frame: frame, playing: playing, speech: speech, aboveResidualDecibels: 30,
                                    belowReductionDecibels: 30, level: -30, mic: speech ? -30 : -40, reference: -20) {
                    decisions += 1
                }
                frame += 1
            }
            return decisions
        }
        XCTAssertEqual(feed(300, playing: true, speech: false), 0)
        XCTAssertEqual(feed(60, playing: true, speech: true), 1, "the first talker")
        XCTAssertEqual(feed(100, playing: true, speech: true), 0, "still counted: not re-armed")
        XCTAssertEqual(feed(60, playing: false, speech: false), 0, "stopped for 600 ms")
        XCTAssertEqual(feed(100, playing: true, speech: false), 0, "the next answer")
        XCTAssertEqual(feed(60, playing: true, speech: true), 1, "the next talker")
    }
}
