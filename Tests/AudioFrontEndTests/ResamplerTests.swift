import XCTest
@testable import AudioFrontEnd

/// Frequency response and timing of both resampler backends, measured on synthetic tones against their
/// analytic ground truth.
final class ResamplerTests: XCTestCase {
    /// 48 → 16 kHz (and 44.1 → 16 kHz, speexdsp's interpolated-filter path) at the default quality.
    func testSpeexDefaultDownsamplingIsFlatAndRejectsAliases() throws {
        for (inputRate, outputRate) in [(48000, 16000), (44100, 16000)] {
            let resampler = try SpeexResampler(inputRate: inputRate, outputRate: outputRate)
            let label = "SpeexResampler q\(resampler.configuration.quality) \(inputRate)→\(outputRate)"
            ResamplerProbe.assertPassband(resampler, upTo: 6400, tolerance: 0.5, label)
            ResamplerProbe.assertAliasRejection(resampler, below: -80, label)
        }
    }

    func testSpeexDefaultUpsamplingIsFlatAndRejectsImages() throws {
        let resampler = try SpeexResampler(inputRate: 16000, outputRate: 48000)
        let label = "SpeexResampler q\(resampler.configuration.quality) 16000→48000"
        ResamplerProbe.assertPassband(resampler, upTo: 6400, tolerance: 0.5, label)
        ResamplerProbe.assertImageRejection(resampler, tonesUpTo: 6400, below: -80, label)
    }

    /// Upstream: 97 dB SNR at 97 / 90 / 80 % of the bandwidth. Measured 48 → 16 kHz: aliases −144 / −116 / −96 dB;
    /// fastest is −0.5 dB at 6 kHz and −2.8 dB at 6.4 kHz, so its flat band is checked to 5 kHz.
    func testSampleRateConverterQualitiesMeetTheirSpecs() throws {
        for quality in SampleRateConverter.Configuration.Quality.allCases {
            let flatTo: Double = quality == .fastest ? 5000 : 6400
            for (inputRate, outputRate) in [(48000, 16000), (16000, 48000)] {
                let resampler = try SampleRateConverter(inputRate: inputRate, outputRate: outputRate,
                                                        configuration: .init(quality: quality))
                let label = "SampleRateConverter \(quality) \(inputRate)→\(outputRate)"
                ResamplerProbe.assertPassband(resampler, upTo: flatTo, tolerance: 0.5, label)
                if inputRate > outputRate {
                    ResamplerProbe.assertAliasRejection(resampler, below: -90, label)
                } else {
                    ResamplerProbe.assertImageRejection(resampler, tonesUpTo: flatTo, below: -90, label)
                }
            }
        }
    }

    /// A band-limited multi-tone signal keeps its timing: the cross-correlation of the output with the signal
    /// computed directly at the output rate peaks at lag 0, and the two agree to 40 dB (a tenth of a sample of
    /// skew would leave under 20 dB at 3 kHz).
    func testOutputIsTimeAligned() throws {
        let pairs = [(48000, 16000), (16000, 48000), (44100, 16000), (22050, 16000), (16000, 8000), (8000, 44100)]
        for backend in ResamplerBackend.defaults {
            for (inputRate, outputRate) in pairs {
                let resampler = try backend.make(inputRate, outputRate)
                let label = "\(backend) \(inputRate)→\(outputRate)"
                let seconds = 0.5
                let input = ResamplerProbe.multiTone(rate: inputRate, seconds: seconds)
                let output = resampler.resample(input)
                let reference = ResamplerProbe.multiTone(rate: outputRate, seconds: seconds)
                XCTAssertEqual(output.count, resampler.expectedOutputCount(forInputCount: input.count), label)
                let window = (outputRate / 10)..<(outputRate * 4 / 10)
                var bestLag = Int.min, best = -Double.infinity
                for lag in -8...8 {
                    var sum = 0.0
                    for k in window { sum += Double(output[k]) * Double(reference[k + lag]) }
                    if sum > best { (best, bestLag) = (sum, lag) }
                }
                XCTAssertEqual(bestLag, 0, "\(label): cross-correlation peak at lag \(bestLag) output samples")
                let snr = SignalMetrics.snr(reference: Array(reference[window]), test: Array(output[window]))
                XCTAssertGreaterThan(snr, 40, "\(label): output vs. the signal at the output rate, SNR \(snr) dB")
            }
        }
    }

    /// Equal rates copy: the output is the input, bit for bit, on both paths.
    func testEqualRatesCopyExactly() throws {
        let input = ResamplerProbe.multiTone(rate: 16000, seconds: 0.2)
        let ints = SampleConversion.int16(from: input)
        for backend in ResamplerBackend.defaults {
            let resampler = try backend.make(16000, 16000)
            XCTAssertEqual(resampler.resample(input), input, "\(backend) 16000→16000")
        }
        let speex = try SpeexResampler(inputRate: 16000, outputRate: 16000)
        let converter = try SampleRateConverter(inputRate: 16000, outputRate: 16000)
        XCTAssertEqual(ResamplerProbe.resampleInt16(ints, chunk: 333, speex.process, speex.flush).output, ints, "speex int16")
        XCTAssertEqual(ResamplerProbe.resampleInt16(ints, chunk: 333, converter.process, converter.flush).output, ints,
                       "libsamplerate int16")
    }

    /// The tones vector (48 kHz int16, 1 s tones at −6 dBFS) through the int16 paths to 16 kHz: tones below 8 kHz
    /// keep their level within 0.5 dB, tones above leave less than −80 dB of a full-scale sine.
    func testTonesVectorThroughInt16Paths() throws {
        let (samples, rate) = try TestVectors.int16("tones_48k.wav")
        let entry = try TestVectors.entry("tones_48k.wav")
        let segments = try XCTUnwrap(entry["segments"] as? [[Double]], "tones_48k.wav has no segments")
        let speex = try SpeexResampler(inputRate: rate, outputRate: 16000)
        let converter = try SampleRateConverter(inputRate: rate, outputRate: 16000)
        let outputs = [
            ("speex q\(speex.configuration.quality)", ResamplerProbe.resampleInt16(samples, chunk: 480, speex.process, speex.flush).output),
            ("libsamplerate medium", ResamplerProbe.resampleInt16(samples, chunk: 480, converter.process, converter.flush).output),
        ]
        let fullScale = 32768.0 * 32768.0 / 2
        for (name, output) in outputs {
            XCTAssertEqual(output.count, samples.count / 3, name)
            for segment in segments {
                let (start, frequency) = (segment[0], segment[2])
                let window = Int((start + 0.3) * 16000)..<Int((start + 0.7) * 16000)
                let inputWindow = Int((start + 0.3) * Double(rate))..<Int((start + 0.7) * Double(rate))
                let label = "\(name) tones_48k.wav \(frequency) Hz at \(start) s"
                if frequency < 8000 {
                    let gain = SignalMetrics.decibels(SignalMetrics.power(output, window) / SignalMetrics.power(samples, inputWindow))
                    XCTAssertEqual(gain, 0, accuracy: 0.5, "\(label): gain \(gain) dB")
                } else {
                    let left = SignalMetrics.decibels(SignalMetrics.power(output, window) / fullScale)
                    XCTAssertLessThan(left, -80, "\(label): \(left) dB re full scale left")
                }
            }
        }
    }
}
