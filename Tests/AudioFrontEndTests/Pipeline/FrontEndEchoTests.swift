import AudioFrontEnd
import Foundation
import XCTest

/// The pipeline's targets on the echo vectors, default configuration, no delay given by the app.
final class FrontEndEchoTests: XCTestCase {
    /// Far-end-only echo at true delays 0, 40, 120, 250 and 400 ms: the worst one-second ERLE from 3 s after the
    /// first echo is at least 25 dB (measured 30-35 dB with the default chain), the output has the mic's length,
    /// and the VAD on the output starts no speech segment (echo only).
    func testFarEndEchoIsRemovedAtEveryDelayWithinThreeSeconds() throws {
        for delay in [0, 40, 120, 250, 400] {
            let name = "echo_d\(delay)ms_16k.wav"
            let result = try Self.worstERLE(FrontEndConfiguration(), delay: delay)
            print("MEASURED \(name): worst 1 s ERLE from 3 s after first echo \(String(format: "%.1f", result.worst)) dB; final delay estimate \(String(describing: result.delayEstimate)); speech starts \(result.speechStarts)")
            XCTAssertEqual(result.outputCount, result.micCount, "\(name): output count")
            XCTAssertGreaterThanOrEqual(result.worst, 25, "\(name): worst one-second ERLE from 3 s after the first echo")
            XCTAssertEqual(result.speechStarts, [], "\(name): echo only, yet the VAD started speech (ms)")
        }
    }

    /// The 48 kHz echo vectors (own room impulse response, 48 kHz mic and reference, processed at 16 kHz):
    /// echo only, so the VAD on the output starts no speech segment.
    func testNoSpeechStartOnTheEchoAt48kHz() throws {
        var configuration = FrontEndConfiguration()
        configuration.mic = .init(sampleRate: 48000)
        configuration.reference = .init(sampleRate: 48000)
        for delay in [0, 40, 120] {
            let name = "echo_d\(delay)ms_48k.wav"
            let result = try FrontEndHarness.run(configuration, mic: try StageRunner.samples(name),
                                                 reference: try StageRunner.samples("farend_48k.wav"), chunk: 480)
            let starts = result.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
            print("MEASURED \(name): speech starts \(starts)")
            XCTAssertEqual(starts, [], "\(name): echo only, yet the VAD started speech (ms)")
        }
    }

    /// Runs `echo_d<delay>ms_16k.wav` through a front end made with `configuration` (no delay given) and
    /// returns the worst one-second ERLE from 3 s after the first echo, over seconds with echo present.
    static func worstERLE(_ configuration: FrontEndConfiguration, delay: Int)
        throws -> (worst: Double, delayEstimate: Double?, outputCount: Int, micCount: Int, speechStarts: [Int]) {
        let name = "echo_d\(delay)ms_16k.wav"
        let (mic, entry) = (try StageRunner.samples(name), try TestVectors.entry(name))
        let reference = try StageRunner.samples("farend_16k.wav")
        let result = try FrontEndHarness.run(configuration, mic: mic, reference: reference)
        let output = result.alignedAudio
        let echoStart = entry["echo_start_s"] as! Double
        var worst = Double.infinity
        var second = echoStart + 3
        while second + 1 <= 21 {
            let range = Int(second * 16000)..<Int((second + 1) * 16000)
            if SignalMetrics.power(mic, range) > 1e4 { // echo present (about -35 dBFS)
                let erle = SignalMetrics.erle(mic: mic, output: output, range: range)
                if ProcessInfo.processInfo.environment["AFE_VERBOSE"] != nil { print("  \(name) \(second) s: \(erle) dB") }
                worst = min(worst, erle)
            }
            second += 1
        }
        let starts = result.events.compactMap { if case .speechStarted(let ms) = $0 { ms } else { nil } }
        return (worst, result.telemetry.last?.delayMilliseconds, output.count, mic.count, starts)
    }
}

extension FrontEndEchoTests {
    /// VAD on the output (issue 3, part 6): on `doubletalk_ser0db_16k.wav` every labelled near-end utterance has
    /// a speech start and a speech end within 100 ms of its label, and no start falls outside the labels (so
    /// none on the echo-only spans). Default configuration: the echo speech gate (`EchoSpeechGate`) keeps
    /// residual echo, and the unconverged canceller's first echo, from counting as speech. Measured: starts
    /// 3030, 6220, 12380, 17230 ms and ends 4830, 8580, 15000, 19880 ms against labels 3030-4830, 6220-8510,
    /// 12320-15050, 17220-19800 ms. (At SER -5 dB the third start comes 130 ms late, the weak onset being 30 dB
    /// under the echo; at +5 dB an end is held by the next echo onset. The target is set at 0 dB.)
    func testSpeechSegmentsOnTheDoubleTalkVectorMatchTheLabels() throws {
        let name = "doubletalk_ser0db_16k.wav"
        let mic = try StageRunner.samples(name)
        let entry = try TestVectors.entry(name)
        let reference = try StageRunner.samples("farend_16k.wav")
        let result = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
        var starts: [Int] = [], ends: [Int] = []
        for event in result.events {
            if case .speechStarted(let ms) = event { starts.append(ms) }
            if case .speechEnded(let ms) = event { ends.append(ms) }
        }
        let labels = entry.speechIntervals
        // Drops (a reference overwritten before use when the pushes run far ahead of processing on a loaded
        // machine) would leave echo uncancelled: printed so such a failure explains itself.
        print("MEASURED \(name): speech starts \(starts) ends \(ends); labels \(labels); drops \(String(describing: result.summary?.drops))")
        for label in labels {
            let start = Int((label.start * 1000).rounded()), end = Int((label.end * 1000).rounded())
            XCTAssertTrue(starts.contains { abs($0 - start) <= 100 }, "\(name): no speech start within 100 ms of \(start) ms; starts \(starts)")
            XCTAssertTrue(ends.contains { abs($0 - end) <= 100 }, "\(name): no speech end within 100 ms of \(end) ms; ends \(ends)")
        }
        for start in starts {
            XCTAssertTrue(labels.contains { Double(start) / 1000 >= $0.start - 0.1 && Double(start) / 1000 <= $0.end },
                          "\(name): speech start at \(start) ms lies outside every labelled utterance (echo-only span?)")
        }
        XCTAssertEqual(starts.count, labels.count, "\(name): one segment per utterance; starts \(starts)")
    }
}
