@testable import AudioFrontEnd
import XCTest

/// The barge-in decision's own margins over the residual level and under the echo reduction
/// (``FrontEndConfiguration/BargeIn/nearToResidualDecibels``, ``FrontEndConfiguration/BargeIn/echoMarginDecibels``):
/// they replace the echo speech gate's (which the VAD keeps), and stand higher while the echo path gain is young
/// (``FrontEndConfiguration/BargeIn/marginWarmUpMilliseconds``). Synthetic frame levels through the gate and the
/// detector as ``ProcessingChain`` feeds them.
final class BargeInMarginsTests: XCTestCase {
    private struct Loop {
        var gate: EchoSpeechGate
        var detector: BargeInDetector
        var frame = 0
        /// Talker frames the gate itself let count as speech.
        var gateAllowedTalker = 0

        init(_ settings: FrontEndConfiguration.BargeIn, gate gateSettings: FrontEndConfiguration.EchoGate = .init()) {
            var broadband = settings
            broadband.bandWeight = 0
            gate = EchoSpeechGate(gateSettings)
            detector = BargeInDetector(broadband)
        }

        /// One frame of levels (dBFS); `voice`: the VAD hears speech. Returns whether a barge-in was decided.
        mutating func feed(mic: Float, output: Float, voice: Bool, echo: Float = -30) -> Bool {
            if gate.allowsSpeech(reference: -20, mic: mic, echoEstimate: echo, output: output), voice { gateAllowedTalker += 1 }
            defer { frame += 1 }
            return detector.judge(after: gate, frame: frame, reference: -20, mic: mic, echo: echo, output: output,
                                  voice: voice)
        }

        /// Echo alone with 22 dB of reduction (the output at -52 dBFS).
        mutating func echo(_ frames: Int) -> Int {
            (0..<frames).filter { _ in feed(mic: -30, output: -52, voice: false) }.count
        }

        /// A talker 10 dB over the echo whose output stands `above` dB over the residual level (and as far under
        /// the running echo reduction) for 60 frames; then 60 frames of echo alone (re-arming).
        /// `underReduction`: how far its reduction falls under the running 22 dB (default: as far as `above`).
        mutating func talker(above: Float, underReduction: Float? = nil) -> Int {
            let output = -52 + above
            let estimate = output + 22 - (underReduction ?? above)
            let decided = (0..<60).filter { _ in feed(mic: -20, output: output, voice: true, echo: estimate) }.count
            return decided + echo(60)
        }
    }

    private func settings(warmUpDecibels: Float) -> FrontEndConfiguration.BargeIn {
        var settings = FrontEndConfiguration.BargeIn()
        settings.nearToResidualDecibels = 10
        settings.echoMarginDecibels = 8
        settings.marginWarmUpMilliseconds = 3000
        settings.marginWarmUpDecibels = warmUpDecibels
        return settings
    }

    func testTheDecisionKeepsItsOwnMarginsWhereTheGatesAreStricter() {
        var gate = FrontEndConfiguration.EchoGate()
        gate.residualMarginDecibels = 30
        var loop = Loop(settings(warmUpDecibels: 0), gate: gate)
        XCTAssertEqual(loop.echo(300), 0)
        XCTAssertTrue(loop.gate.hasConverged)
        XCTAssertEqual(loop.talker(above: 17), 1, "17 dB over the residual level: past the decision's 10 dB")
        XCTAssertEqual(loop.gateAllowedTalker, 0, "the gate itself (30 dB) let none of it count as speech")
    }

    func testTheDecisionsMarginsStillApply() {
        var strict = settings(warmUpDecibels: 0)
        strict.nearToResidualDecibels = 16
        var loop = Loop(strict)
        XCTAssertEqual(loop.echo(300), 0)
        XCTAssertEqual(loop.talker(above: 13), 0, "13 dB over the residual level: under the decision's 16 dB")
        XCTAssertEqual(loop.gateAllowedTalker, 60, "where the gate's own 12 dB let all of it count as speech")
        XCTAssertEqual(loop.talker(above: 17), 1)
    }

    func testTheDecisionsEchoMarginApplies() {
        var gate = FrontEndConfiguration.EchoGate()
        gate.echoMarginDecibels = 6 // (a talker 7-9 dB under the reduction: past the gate, not learned by it)
        var loop = Loop(settings(warmUpDecibels: 0), gate: gate)
        XCTAssertEqual(loop.echo(300), 0)
        XCTAssertEqual(loop.talker(above: 14, underReduction: 7), 0, "7 dB under the reduction: the decision needs 8")
        XCTAssertEqual(loop.gateAllowedTalker, 60, "the gate's own 6 dB let it count as speech")
        XCTAssertEqual(loop.talker(above: 14, underReduction: 9), 1)
    }

    func testBadWarmUpSettings() {
        for change: (inout FrontEndConfiguration.BargeIn) -> Void in [{ $0.marginWarmUpMilliseconds = 15 },
                                                                      { $0.marginWarmUpMilliseconds = 60010 },
                                                                      { $0.marginWarmUpDecibels = 31 },
                                                                      { $0.marginWarmUpDecibels = .nan }] {
            var settings = FrontEndConfiguration.BargeIn()
            change(&settings)
            XCTAssertThrowsError(try settings.validate()) { error in
                XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidConfiguration)
                XCTAssertTrue("\(error)".contains("marginWarmUp"), "\(error)")
            }
        }
    }

    func testTheMarginsStandHigherWhileThePathGainIsYoung() {
        var loop = Loop(settings(warmUpDecibels: 4))
        XCTAssertEqual(loop.echo(150), 0)
        XCTAssertEqual(loop.talker(above: 12), 0, "12 dB: under 10 + 4 with 1.5 s of echo learned")
        XCTAssertEqual(loop.talker(above: 15), 1, "15 dB: past 10 + 4")
        XCTAssertEqual(loop.echo(200), 0)
        XCTAssertEqual(loop.talker(above: 12), 1, "12 dB once the path gain has learned from 3 s of echo")
    }

    func testWithoutTheWarmUpTheSameTalkerCountsEarly() {
        var loop = Loop(settings(warmUpDecibels: 0))
        XCTAssertEqual(loop.echo(150), 0)
        XCTAssertEqual(loop.talker(above: 12), 1)
    }
}
