@testable import AudioFrontEnd
import XCTest

/// The echo speech gate's tail test (`FrontEndConfiguration.EchoGate.tailDecayMilliseconds`), on frame levels
/// made to look like a long room: after a loud far-end word the output keeps the word's late tail while the
/// canceller's echo estimate has fallen. The tail must not count as above the tail envelope; a talker in the
/// same pause must.
final class EchoSpeechGateTailTests: XCTestCase {
    /// Runs far-end bursts (reference -25 dBFS, output 35 dB under the estimate), each followed by a loud word
    /// (-12 dBFS) and a 150 ms pause in which the output decays from -40 dBFS at 1 dB per frame; returns the
    /// tail verdicts of the last pause, with the output at `talker` dBFS in its frames 5...9 when given.
    private func lastPause(talker: Float?) -> [Bool] {
        var gate = EchoSpeechGate()
        var verdicts: [Bool] = []
        for cycle in 0..<20 {
            for _ in 0..<40 { _ = gate.allowsSpeech(reference: -25, mic: -25, echoEstimate: -25, output: -60) }
            for _ in 0..<5 { _ = gate.allowsSpeech(reference: -12, mic: -12, echoEstimate: -12, output: -47) }
            for k in 0..<15 {
                let talking = cycle == 19 && (5...9).contains(k)
                let output = talking ? talker ?? -40 - Float(k) : -40 - Float(k)
                _ = gate.allowsSpeech(reference: -70, mic: -30, echoEstimate: -60, output: output)
                if cycle == 19 { verdicts.append(gate.isAboveTail) }
            }
        }
        return verdicts
    }

    func testLateTailStaysUnderTheTailEnvelope() {
        let verdicts = lastPause(talker: nil)
        XCTAssertFalse(verdicts.contains(true), "tail verdicts of the last pause: \(verdicts)")
    }

    func testTalkerInThePauseStandsAboveTheTailEnvelope() {
        let verdicts = lastPause(talker: -30)
        XCTAssertEqual(Array(verdicts[5...9]), Array(repeating: true, count: 5), "tail verdicts: \(verdicts)")
    }
}
