import AudioFrontEnd
import XCTest

/// An app whose playback and capture callbacks run in lock step pushes each 10 ms of reference at the same moment
/// as the mic, at the player's own rate. The reference resampler holds back a few samples, so the newest
/// reference of a frame is not there yet when the frame is processed; the delay estimator must not be pulled off
/// the true delay by that (it was: 55.6 ms found instead of 120 ms when the reference came at 48 kHz).
final class FrontEndLockstepReferenceTests: XCTestCase {
    func testLockstepReferenceAtAnotherRateFindsTheTrueDelay() throws {
        let mic = try StageRunner.samples("echo_d120ms_16k.wav")
        let far16k = try StageRunner.samples("farend_16k.wav")
        for (rate, micFirst) in [(48000, true), (48000, false), (44100, true), (16000, true)] {
            let reference: [Int16]
            if rate == 16000 { reference = far16k } else {
                let converter = try SampleRateConverter(inputRate: 16000, outputRate: rate,
                                                        configuration: .init(quality: .best))
                reference = SampleConversion.int16(from: converter.resample(SampleConversion.float(from: far16k)))
            }
            var configuration = FrontEndConfiguration()
            configuration.reference = .init(sampleRate: rate)
            let (frontEnd, collector) = try FrontEndHarness.started(configuration)
            var referenceOffset = 0
            for start in stride(from: 0, to: mic.count, by: 160) {
                let end = min(mic.count, start + 160)
                let referenceEnd = min(reference.count, end * rate / 16000)
                let pushReference = {
                    _ = reference[referenceOffset..<referenceEnd].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
                    referenceOffset = referenceEnd
                }
                if !micFirst { pushReference() }
                XCTAssertEqual(mic[start..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .ok)
                if micFirst { pushReference() }
            }
            _ = try frontEnd.finish()
            let label = "reference at \(rate) Hz pushed \(micFirst ? "after" : "before") each mic push"
            let estimate = try XCTUnwrap(collector.telemetry.last?.delayMilliseconds, label)
            let output = collector.alignedAudio
            let lastSeconds = (17 * 16000)..<(20 * 16000)
            let erle = SignalMetrics.erle(mic: mic, output: output, range: lastSeconds)
            print("MEASURED lockstep \(label): delay \(estimate) ms, ERLE 17-20 s \(String(format: "%.1f", erle)) dB")
            XCTAssertEqual(estimate, 120, accuracy: 5, label)
            XCTAssertGreaterThanOrEqual(erle, 25, label)
        }
    }
}
