@testable import AudioFrontEnd
import XCTest

/// The barge-in decision's fast echo path gain (``FrontEndConfiguration/BargeIn/fastGainMilliseconds``) on
/// synthetic frame levels with known ground truth: after an echo path change that makes the echo 6 dB louder,
/// the frames a leak then lets through the gate stand above the slow gain's prediction like a talker; the fast
/// gain, learned on the echo-only frames between them, predicts the louder echo within a few hundred ms, and a
/// real talker over the new path is still found. `bargein.py` measures it on the scenario matrix.
final class BargeInFastGainTests: XCTestCase {
    /// 400 echo-only frames (mic 20 dB under the reference), then the path 6 dB louder: `echoFrames` echo-only
    /// frames, then 60 frames the gate passes with the mic `excess` dB over the new echo. Returns the deciding
    /// frame of the last part (from 1) or nil.
    private func decidingFrame(fastGainMilliseconds: Int, echoFrames: Int, excess: Float) -> Int? {
        var settings = FrontEndConfiguration.BargeIn()
        settings.bandWeight = 0
        settings.fastGainMilliseconds = fastGainMilliseconds
        var detector = BargeInDetector(settings)
        var frame = 0
        for _ in 0..<400 {
            XCTAssertFalse(detector.process(frame: frame, playing: true, speech: false, aboveResidualDecibels: 0,
                                            belowReductionDecibels: 0, level: -50, mic: -40, reference: -20))
            frame += 1
        }
        for _ in 0..<echoFrames {
            XCTAssertFalse(detector.process(frame: frame, playing: true, speech: false, aboveResidualDecibels: 0,
                                            belowReductionDecibels: 0, level: -50, mic: -34, reference: -20))
            frame += 1
        }
        for k in 1...60 {
            frame += 1
            if detector.process(frame: frame, playing: true, speech: true, aboveResidualDecibels: 30,
                                belowReductionDecibels: 30, level: -30, mic: -34 + excess, reference: -20) {
                return k
            }
        }
        return nil
    }

    func testALeakAfterAPathChangeIsNoBargeInWithTheFastGain() {
        // 300 ms of echo-only frames after the change: the slow gain (1 s) has followed 3 of the 6 dB, so the leak
        // stands ~3 dB over its prediction and decides; the fast gain (200 ms) has followed ~5.5 dB.
        XCTAssertNotNil(decidingFrame(fastGainMilliseconds: 0, echoFrames: 30, excess: 0), "the slow gain alone")
        XCTAssertNil(decidingFrame(fastGainMilliseconds: 200, echoFrames: 30, excess: 0))
    }

    func testATalkerOverTheNewPathIsStillFound() {
        XCTAssertNotNil(decidingFrame(fastGainMilliseconds: 200, echoFrames: 30, excess: 10))
    }

    func testValidates() {
        for change: (inout FrontEndConfiguration.BargeIn) -> Void in [{ $0.fastGainMilliseconds = -10 },
                                                                      { $0.fastGainMilliseconds = 105 },
                                                                      { $0.bandTop = 8 },
                                                                      { $0.fastHoldDecibels = -1 }] {
            var settings = FrontEndConfiguration.BargeIn()
            change(&settings)
            XCTAssertThrowsError(try settings.validate())
        }
    }
}
