import AudioFrontEnd
import XCTest

/// Near-end transparency (``FrontEndConfiguration/nearEndTransparency``): with the reference silent the default
/// chain delivers the mic as it came in; while the far end plays it cancels as before.
final class NearEndTransparencyTests: XCTestCase {
    /// A talker in noise with a digitally silent reference (a loopback reference while nothing plays): the
    /// output is the mic, sample for sample. With transparency off the cancellers' output differs from it.
    func testSilentReferenceDeliversTheMic() throws {
        let mic = try StageRunner.samples("noisy_snr10db_16k.wav")
        let silence = [Int16](repeating: 0, count: mic.count)
        let on = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: silence).alignedAudio
        var configuration = FrontEndConfiguration()
        configuration.nearEndTransparency = false
        let off = try FrontEndHarness.run(configuration, mic: mic, reference: silence).alignedAudio
        let compared = mic.count - 480 // the aligned output's last samples are padding
        let differingOn = (0..<compared).count { on[$0] != mic[$0] }
        let differingOff = (0..<compared).count { off[$0] != mic[$0] }
        print("MEASURED silent reference: samples differing from the mic \(differingOn) (transparency), \(differingOff) (off) of \(compared)")
        XCTAssertEqual(differingOn, 0, "transparency: the output is not the mic")
        XCTAssertGreaterThan(differingOff, 0, "the cancellers changed nothing: this test could not fail")
    }

    /// Far-end echo (`echo_d120ms_16k.wav`), then the reference falls silent and a talker follows: during the
    /// echo the worst one-second ERLE stays within 0.5 dB of the chain without transparency (the cancellers run
    /// and adapt throughout); from 1 s after the reference's last sound (600 ms tail + the 120 ms delay + the
    /// 100 ms fade, with margin) the output is the mic.
    func testEchoIsCancelledAndTheTalkerAfterItPassesUntouched() throws {
        let echo = try StageRunner.samples("echo_d120ms_16k.wav")
        let talker = try StageRunner.samples("nearend_16k.wav")
        var reference = try StageRunner.samples("farend_16k.wav")
        reference += [Int16](repeating: 0, count: echo.count + talker.count - reference.count)
        let mic = echo + talker
        let lastSound = reference.lastIndex { abs(Int($0)) > 10 } ?? 0
        var off = FrontEndConfiguration()
        off.nearEndTransparency = false
        let outputOn = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference).alignedAudio
        let outputOff = try FrontEndHarness.run(off, mic: mic, reference: reference).alignedAudio
        func worstSecond(_ output: [Int16]) -> Double {
            stride(from: 3 * 16000, to: echo.count - 16000, by: 16000).compactMap { start -> Double? in
                let range = start..<(start + 16000)
                return SignalMetrics.power(mic, range) > 1e4 ? SignalMetrics.erle(mic: mic, output: output, range: range) : nil
            }.min() ?? 0
        }
        let (worstOn, worstOff) = (worstSecond(outputOn), worstSecond(outputOff))
        let from = lastSound + 16000, to = mic.count - 480
        let differing = (from..<to).count { outputOn[$0] != mic[$0] }
        print("MEASURED echo then talker: worst 1 s ERLE \(String(format: "%.1f", worstOn)) dB (transparency) vs \(String(format: "%.1f", worstOff)) dB (off); samples differing from the mic after the far end \(differing) of \(to - from)")
        XCTAssertEqual(worstOn, worstOff, accuracy: 0.5, "ERLE during the echo")
        XCTAssertGreaterThanOrEqual(worstOn, 25, "worst one-second ERLE during the echo")
        XCTAssertEqual(differing, 0, "after the far end the output is not the mic")
    }
}
