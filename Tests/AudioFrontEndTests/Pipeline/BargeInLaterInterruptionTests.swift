@testable import AudioFrontEnd
import XCTest

/// The second interruption of a playback: after the first barge-in the device stops the answer and plays the
/// next one, and the output's noise floor comes back up (the suppressors stop holding it down), so the echo
/// speech gate's running echo reduction falls under its converged 15 dB without the canceller having diverged.
/// The gate then let no frame through and every later interruption was missed (issue 14, the scenario matrix's
/// pattern "first onset decided, the next ones missed"). Synthetic frame levels through the gate and the
/// detector as ``ProcessingChain`` feeds them.
final class BargeInLaterInterruptionTests: XCTestCase {
    private struct Loop {
        var gate = EchoSpeechGate()
        var detector: BargeInDetector
        var frame = 0

        init(_ settings: FrontEndConfiguration.BargeIn) {
            var broadband = settings
            broadband.bandWeight = 0 // the broadband excess alone (the bands: BargeInBandsTests)
            detector = BargeInDetector(broadband)
        }

        /// One frame of levels (dBFS); `voice`: the VAD hears speech. Returns whether a barge-in was decided.
        mutating func feed(reference: Float, mic: Float, echo: Float, output: Float, voice: Bool) -> Bool {
            _ = gate.allowsSpeech(reference: reference, mic: mic, echoEstimate: echo, output: output)
            defer { frame += 1 }
            return detector.judge(after: gate, frame: frame, reference: reference, mic: mic, echo: echo,
                                  output: output, voice: voice)
        }

        /// Echo alone for `frames` frames, the output going from `from` to `to` dBFS (the echo estimate -30).
        mutating func echo(_ frames: Int, from: Float, to: Float) -> Int {
            (0..<frames).filter { k in
                feed(reference: -20, mic: -30, echo: -30, output: from + (to - from) * Float(k) / Float(frames),
                     voice: false)
            }.count
        }

        /// A talker 10 dB over the echo for `frames` frames (the output keeps it).
        mutating func talker(_ frames: Int) -> Int {
            (0..<frames).filter { _ in feed(reference: -20, mic: -20, echo: -30, output: -25, voice: true) }.count
        }

        /// The far end stopped for `frames` frames (the talker finishing, then silence).
        mutating func stopped(_ frames: Int) -> Int {
            (0..<frames).filter { _ in feed(reference: -160, mic: -50, echo: -50, output: -50, voice: false) }.count
        }
    }

    /// Returns the decisions for the first and the second interruption.
    private func interruptions(_ settings: FrontEndConfiguration.BargeIn) -> (Int, Int) {
        var loop = Loop(settings)
        XCTAssertEqual(loop.echo(300, from: -52, to: -52), 0, "echo alone, 22 dB of reduction: converged")
        let first = loop.talker(60)
        XCTAssertEqual(loop.stopped(80), 0, "stopped for 800 ms")
        // The next answer: the output's floor rises 10 dB over 5 s, the reduction falls to 12 dB and stays.
        XCTAssertEqual(loop.echo(500, from: -52, to: -42) + loop.echo(300, from: -42, to: -42), 0)
        XCTAssertLessThan(loop.gate.echoReduction, loop.gate.convergedDecibels, "the running reduction fell under 15")
        XCTAssertTrue(loop.gate.hasConverged)
        return (first, loop.talker(60))
    }

    func testTheSecondInterruptionIsDecidedAfterTheReductionFell() {
        let (first, second) = interruptions(FrontEndConfiguration.BargeIn())
        XCTAssertEqual(first, 1, "the first interruption")
        XCTAssertEqual(second, 1, "the second interruption, with the gate's reduction under 15 dB")
    }

    func testTheGatesOwnConvergenceTestMissesIt() {
        var settings = FrontEndConfiguration.BargeIn()
        settings.convergedDecibels = 15 // the gate's own test, as before
        settings.unconvergedAfterMilliseconds = 0 // (the waiver bypasses the running-reduction floor too)
        let (first, second) = interruptions(settings)
        XCTAssertEqual(first, 1)
        XCTAssertEqual(second, 0, "nothing counted once the reduction fell under 15 dB")
    }

    func testNothingCountsBeforeTheGateFirstConverged() {
        var gate = EchoSpeechGate()
        for _ in 0..<300 { _ = gate.allowsSpeech(reference: -20, mic: -30, echoEstimate: -30, output: -40) }
        _ = gate.allowsSpeech(reference: -20, mic: -20, echoEstimate: -30, output: -25)
        XCTAssertFalse(gate.hasConverged, "10 dB of reduction: never converged")
        XCTAssertTrue(gate.passesMargins)
        XCTAssertFalse(gate.allowsBargeIn(convergedDecibels: 0), "a talker-like frame before convergence")
    }
}
