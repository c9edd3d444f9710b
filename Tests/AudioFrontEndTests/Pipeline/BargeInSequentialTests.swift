@testable import AudioFrontEnd
import XCTest

/// The barge-in decision's sequential test (``FrontEndConfiguration/BargeIn/evidenceDecibels``) on synthetic
/// frame levels: strong evidence decides before the run's minimum duration, nothing decides before the warm-up,
/// and the test off leaves only the run. Latency over the scenario matrix is measured by
/// `Scripts/scenarios/bargein.py`, not here.
final class BargeInSequentialTests: XCTestCase {
    /// Feeds `echoFrames` of echo alone (mic 20 dB under the reference), then counted frames with the mic
    /// `excess` dB above the echo it would hold; returns the talker frame that decided (from 1), or nil.
    private func decidingFrame(_ settings: FrontEndConfiguration.BargeIn, echoFrames: Int, excess: Float,
                               talkerFrames: Int = 60) -> Int? {
        var broadband = settings
        broadband.bandWeight = 0 // the broadband excess alone (the bands: BargeInBandsTests)
        var detector = BargeInDetector(broadband)
        for frame in 0..<echoFrames {
            XCTAssertFalse(detector.process(frame: frame, playing: true, speech: false, aboveResidualDecibels: 0,
                                            belowReductionDecibels: 0, level: -50, mic: -40, reference: -20))
        }
        for k in 1...talkerFrames where detector.process(frame: echoFrames + k, playing: true, speech: true,
                                                       aboveResidualDecibels: 30, belowReductionDecibels: 30,
                                                       level: -30, mic: -40 + excess, reference: -20) {
            return k
        }
        return nil
    }

    func testStrongEvidenceDecidesEarly() {
        // 10 dB over the echo: 7 dB of evidence a frame reaches 40 at the 6th frame, the 80 ms minimum at the 8th.
        XCTAssertEqual(decidingFrame(FrontEndConfiguration.BargeIn(), echoFrames: 300, excess: 10), 8)
        var off = FrontEndConfiguration.BargeIn()
        off.evidenceDecibels = 0
        XCTAssertEqual(decidingFrame(off, echoFrames: 300, excess: 10), 20, "the run alone: its 200 ms")
    }

    func testWeakEvidenceWaitsForTheRun() {
        // 4.5 dB over the echo: 1.5 dB a frame needs 27 frames, so the 200 ms run (its 4 dB average met) decides.
        XCTAssertEqual(decidingFrame(FrontEndConfiguration.BargeIn(), echoFrames: 300, excess: 4.5), 20)
        // 2 dB: under both the offset and the run's average, no decision.
        XCTAssertNil(decidingFrame(FrontEndConfiguration.BargeIn(), echoFrames: 300, excess: 2))
    }

    func testNothingEarlyBeforeTheWarmUp() {
        // 100 echo-only frames: the path gain is known for the run's test (50) but not for the sequential one (150).
        XCTAssertEqual(decidingFrame(FrontEndConfiguration.BargeIn(), echoFrames: 100, excess: 10), 20)
    }

    func testBadSequentialSettingsAreRefused() {
        for change: (inout FrontEndConfiguration.BargeIn) -> Void in [{ $0.evidenceDecibels = -1 },
                                                                      { $0.evidenceMissDecibels = 90 },
                                                                      { $0.evidenceMinimumMilliseconds = 85 },
                                                                      { $0.evidenceWarmUpMilliseconds = -10 },
                                                                      { $0.evidenceOffsetDecibels = .nan }] {
            var settings = FrontEndConfiguration.BargeIn()
            change(&settings)
            XCTAssertThrowsError(try settings.validate()) { error in
                XCTAssertTrue("\(error)".contains("barge-in evidence"), "\(error)")
            }
        }
    }
}
