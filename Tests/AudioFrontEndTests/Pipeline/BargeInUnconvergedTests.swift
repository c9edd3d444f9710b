@testable import AudioFrontEnd
import XCTest

/// A quiet echo close to the noise floor: the echo speech gate's running reduction never reaches its converged
/// 15 dB, and without ``FrontEndConfiguration/BargeIn/unconvergedAfterMilliseconds`` no interruption of the
/// playback counted at all (issue 14: a tuning-pool scene at SER +10 dB, every onset missed).
final class BargeInUnconvergedTests: XCTestCase {
    /// 12 dB of reduction for `echoFrames` frames of echo alone, then a talker 10 dB over the echo for 60 frames;
    /// returns the decisions.
    private func decisions(_ settings: FrontEndConfiguration.BargeIn, echoFrames: Int) -> Int {
        var broadband = settings
        broadband.bandWeight = 0
        var gate = EchoSpeechGate()
        var detector = BargeInDetector(broadband)
        var count = 0
        for frame in 0..<(echoFrames + 60) {
            let talker = frame >= echoFrames
            let (mic, output): (Float, Float) = talker ? (-20, -25) : (-30, -42)
            _ = gate.allowsSpeech(reference: -20, mic: mic, echoEstimate: -30, output: output)
            let allowed = gate.allowsBargeIn(convergedDecibels: broadband.convergedDecibels,
                                             waiveConvergence: detector.waivesConvergence)
            if detector.process(frame: frame, playing: gate.isPlaybackActive, speech: talker && allowed,
                                aboveResidualDecibels: output - gate.residualLevel,
                                belowReductionDecibels: gate.echoReduction - (-30 - output),
                                level: output, mic: mic, reference: -20) { count += 1 }
        }
        XCTAssertFalse(gate.hasConverged, "12 dB of reduction: never converged")
        return count
    }

    func testZeroWaitsForConvergence() {
        var settings = FrontEndConfiguration.BargeIn()
        settings.unconvergedAfterMilliseconds = 0
        XCTAssertEqual(decisions(settings, echoFrames: 300), 0)
    }

    func testCountsOnceThePathGainHasLearned() {
        let settings = FrontEndConfiguration.BargeIn()
        XCTAssertEqual(settings.unconvergedAfterMilliseconds, 1500)
        XCTAssertEqual(decisions(settings, echoFrames: 300), 1, "3 s of echo alone, then the talker")
        XCTAssertEqual(decisions(settings, echoFrames: 100), 0, "1 s of echo alone: the gain not yet learned")
    }

    func testValidates() {
        var settings = FrontEndConfiguration.BargeIn()
        settings.unconvergedAfterMilliseconds = 15
        XCTAssertThrowsError(try settings.validate())
        settings.unconvergedAfterMilliseconds = 60010
        XCTAssertThrowsError(try settings.validate())
    }
}
