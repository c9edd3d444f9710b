@testable import AudioFrontEnd
import XCTest

/// The echo gate and the barge-in decision when the estimator finds no echo (``EchoPresence``), on frame levels:
/// after an echo the gate had converged on went away, only what stands above the residual level counts for
/// ``EchoSpeechGate/afterEchoGoneFrames``; without an echo from the start, everything counts at once. The barge-in
/// decision's sequential test leaves no evidence from frames counted without an echo.
final class EchoGoneGateTests: XCTestCase {
    /// A gate converged on an echo: reference -25 dBFS, output 30 dB under the estimate (residual level -55).
    private func convergedGate() -> EchoSpeechGate {
        var gate = EchoSpeechGate()
        for _ in 0..<600 { _ = gate.allowsSpeech(reference: -25, mic: -25, echoEstimate: -25, output: -55) }
        XCTAssertTrue(gate.hasConverged)
        return gate
    }

    /// Verdicts of `frames` playback frames without an echo, the output at `output` dBFS.
    private func standingAside(_ gate: inout EchoSpeechGate, output: Float, frames: Int) -> [Bool] {
        (0..<frames).map { _ in
            gate.allowsSpeech(reference: -25, mic: output, echoEstimate: output, output: output, noEcho: true)
        }
    }

    func testAfterAnEchoWentAwayOnlyWhatStandsAboveTheResidualCountsAtFirst() {
        var gate = convergedGate()
        // The room's noise at -52 dBFS (under the residual level plus its 12 dB margin) comes back up as the
        // output once the cancellers pause: held for the hold, then counted (the VAD's floor has followed).
        let noise = standingAside(&gate, output: -52, frames: EchoSpeechGate.afterEchoGoneFrames + 20)
        XCTAssertTrue(gate.isStandingAside)
        XCTAssertFalse(noise.prefix(EchoSpeechGate.afterEchoGoneFrames).contains(true), "held during the hold")
        XCTAssertTrue(noise.suffix(10).allSatisfy { $0 }, "counted after it")
        // A talker well above the residual level counts during the hold (past the first frames after the switch).
        var other = convergedGate()
        let talker = standingAside(&other, output: -25, frames: 100)
        XCTAssertTrue(talker.suffix(50).allSatisfy { $0 }, "a talker during the hold: \(talker)")
    }

    func testWithoutAnEchoFromTheStartEverythingCounts() {
        var gate = EchoSpeechGate()
        let noise = standingAside(&gate, output: -52, frames: 100)
        XCTAssertFalse(gate.hasConverged)
        XCTAssertTrue(noise.suffix(60).allSatisfy { $0 }, "no hold: \(noise)")
    }

    func testNoEvidenceCarriesOverFromFramesWithoutAnEcho() {
        var detector = BargeInDetector(FrontEndConfiguration.BargeIn())
        var frame = 0
        func feed(speech: Bool, noEcho: Bool, count: Int) -> Bool {
            var decided = false
            for _ in 0..<count {
                frame += 1
                // The path gain learns from echo-alone frames first (mic 15 dB over the reference); a talker
                // stands 30 dB over that echo.
                decided = detector.process(frame: frame, playing: true, speech: speech, aboveResidualDecibels: 30,
                                           belowReductionDecibels: 30, level: -10, mic: speech ? -10 : -40,
                                           reference: -25, bandExcess: speech ? 30 : 0, noEcho: noEcho) || decided
            }
            return decided
        }
        _ = feed(speech: false, noEcho: false, count: 300)
        // 50 ms words 160 ms apart: too far apart for the 200 ms run (its gaps end at 150 ms); the sequential test
        // sums them. While no echo is found: no decision, and no evidence left for the first frame with an echo.
        for _ in 0..<6 {
            XCTAssertFalse(feed(speech: true, noEcho: true, count: 5))
            XCTAssertFalse(feed(speech: false, noEcho: true, count: 16))
        }
        XCTAssertFalse(feed(speech: false, noEcho: false, count: 1), "no decision at the first frame with an echo")
        // The same words with an echo: the sequential test decides.
        var decided = false
        for _ in 0..<6 { decided = feed(speech: true, noEcho: false, count: 5) || feed(speech: false, noEcho: false, count: 16) || decided }
        XCTAssertTrue(decided, "the control: the words decided with an echo")
    }
}
