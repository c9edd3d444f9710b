import AllocationCounter
import XCTest
@testable import AudioFrontEnd

/// Noise suppressors measured on the noisy test vectors (near end in pink + babble noise): the noise floor
/// between utterances must drop while the talker keeps its level; plus the stage contract.
final class NoiseSuppressorTests: XCTestCase {
    typealias Level = WebRTCNoiseSuppressor.Configuration.Level

    /// A suppressor with the least noise-floor drop (dB) it must reach on the 5 and 10 dB SNR vectors.
    /// Measured (5 dB / 10 dB SNR): WebRTC low 5.6/5.6, moderate 9.7/9.6, high 13.0/12.9, very high 15.0/15.5;
    /// speex -6 dB 5.0/5.0, -15 dB 8.4/8.5, -40 dB 10.3/10.6.
    static func suppressors(rate: Int = 16000) throws -> [(name: String, stage: NoiseSuppressor, minimumDrop: Double)] {
        let drops: [Level: Double] = [.low: 4, .moderate: 7, .high: 10, .veryHigh: 12]
        var list: [(String, NoiseSuppressor, Double)] = []
        for level in Level.allCases {
            list.append(("WebRTC NS \(level)", try WebRTCNoiseSuppressor(configuration: .init(sampleRate: rate, level: level)),
                         drops[level] ?? 0))
        }
        for (decibels, drop) in [(-6, 3.0), (-15, 6.0), (-40, 8.0)] {
            list.append(("speex NS \(decibels) dB",
                         try SpeexNoiseSuppressor(configuration: .init(sampleRate: rate, noiseSuppressDecibels: decibels)), drop))
        }
        return list
    }

    /// Noise-floor drop over the gaps between utterances (from 1 s on, 100 ms clear of speech) ≥ the backend's
    /// minimum; speech loss against the clean talker over the utterances ≤ 3.5 dB (measured at most 2.4 dB, for
    /// very high at 5 dB SNR); latency at most one frame; stronger settings remove more noise; the defaults leave
    /// the output spectrally closer to the clean talker than the input was.
    func testNoiseFloorDropsAndSpeechIsKept() throws {
        let clean = try StageRunner.samples("nearend_16k.wav")
        for snr in [5, 10] {
            let file = "noisy_snr\(snr)db_16k.wav"
            let entry = try TestVectors.entry(file)
            let mic = try StageRunner.samples(file)
            let speech = StageRunner.ranges(entry.speechIntervals, rate: 16000, count: mic.count)
            let gaps = StageRunner.gaps(between: speech, count: mic.count, margin: 1600)
                .map { Swift.max($0.lowerBound, 16000)..<$0.upperBound }.filter { !$0.isEmpty }
            let probe = [speech[1].lowerBound..<(speech[1].lowerBound + 4000)]
            let inputSDR = SpectralDistortion.magnitudeSDR(reference: clean, test: mic, ranges: speech, lag: 0, sampleRate: 16000, lowestHz: 100)
            var drops: [String: Double] = [:]
            for (name, stage, minimumDrop) in try Self.suppressors() + [("off", try PassthroughNoiseSuppressor(), 0)] {
                let out = StageRunner.run(stage, mic)
                let lag = StageRunner.latency(reference: mic, test: out, ranges: probe, maxLag: 3 * stage.frameLength / 2)
                let drop = SignalMetrics.decibels(StageRunner.power(mic, gaps) / StageRunner.power(out, gaps, lag: lag))
                let loss = SignalMetrics.decibels(StageRunner.power(clean, speech) / StageRunner.power(out, speech, lag: lag))
                let sdr = SpectralDistortion.magnitudeSDR(reference: clean, test: out, ranges: speech, lag: lag, sampleRate: 16000, lowestHz: 100)
                drops[name] = drop
                let what = "\(name), \(file): noise floor drop \(fmt(drop)) dB (minimum \(fmt(minimumDrop))), speech loss vs clean \(fmt(loss)) dB, magnitude SDR vs clean \(fmt(sdr)) dB (input \(fmt(inputSDR))), latency \(lag) samples"
                print("MEASURED NS \(what)")
                if name == "off" {
                    XCTAssertEqual(drop, 0, accuracy: 0.5, "control: \(what)")
                    continue
                }
                XCTAssertGreaterThanOrEqual(drop, minimumDrop, what)
                XCTAssertLessThanOrEqual(loss, 3.5, what)
                XCTAssertLessThanOrEqual(lag, stage.frameLength, what)
                if name == "WebRTC NS moderate" || name == "speex NS -15 dB" {
                    XCTAssertGreaterThanOrEqual(sdr - inputSDR, 1.5, "default setting should bring the talker closer to clean: \(what)")
                }
            }
            let webRTC = Level.allCases.map { drops["WebRTC NS \($0)"] ?? 0 }
            XCTAssertEqual(webRTC, webRTC.sorted(), "\(file): WebRTC noise drop by level low...veryHigh \(webRTC.map(fmt))")
            let speex = [-6, -15, -40].map { drops["speex NS \($0) dB"] ?? 0 }
            XCTAssertEqual(speex, speex.sorted(), "\(file): speex noise drop at -6/-15/-40 dB \(speex.map(fmt))")
        }
    }

    /// Every documented rate suppresses stationary noise: seeded white noise at about -35 dBFS, drop over the
    /// last 2 of 4 s.
    func testEveryRateSuppressesStationaryNoise() throws {
        for rate in [8000, 16000, 32000, 48000] {
            var random = SeededRandom(seed: 0xA0A0 + UInt64(rate))
            let noise = (0..<(4 * rate)).map { _ in Int16(random.uniform() * 1000) }
            let last = [(2 * rate)..<(4 * rate)]
            for (name, stage, minimumDrop) in try Self.suppressors(rate: rate) where name.contains("moderate") || name.contains("-15") {
                let out = StageRunner.run(stage, noise)
                let drop = SignalMetrics.decibels(StageRunner.power(noise, last) / StageRunner.power(out, last))
                let what = "\(name) at \(rate) Hz, white noise (seed \(0xA0A0 + rate)): drop over 2-4 s \(fmt(drop)) dB"
                print("MEASURED NS \(what)")
                XCTAssertEqual(stage.frameLength, rate / 100, what)
                XCTAssertGreaterThanOrEqual(drop, minimumDrop, what)
            }
        }
    }

    func testBadConfigurationsThrowTypedErrors() {
        let cases: [(String, AudioFrontEndError.Code, String, () throws -> Any)] = [
            ("WebRTC NS at 44.1 kHz", .unsupportedSampleRate, "44100", { try WebRTCNoiseSuppressor(configuration: .init(sampleRate: 44100)) }),
            ("WebRTC NS at 22.05 kHz", .unsupportedSampleRate, "22050", { try WebRTCNoiseSuppressor(configuration: .init(sampleRate: 22050)) }),
            ("speex NS 0 dB", .invalidConfiguration, "0", { try SpeexNoiseSuppressor(configuration: .init(sampleRate: 16000, noiseSuppressDecibels: 0)) }),
            ("speex NS -101 dB", .invalidConfiguration, "-101", { try SpeexNoiseSuppressor(configuration: .init(sampleRate: 16000, noiseSuppressDecibels: -101)) }),
            ("speex NS at 7999 Hz", .unsupportedSampleRate, "7999", { try SpeexNoiseSuppressor(configuration: .init(sampleRate: 7999)) }),
            ("passthrough NS at 12345 Hz", .unsupportedSampleRate, "12345", { try PassthroughNoiseSuppressor(configuration: .init(sampleRate: 12345)) }),
        ]
        for (what, code, word, make) in cases {
            XCTAssertThrowsError(try make(), what) { error in
                let e = error as? AudioFrontEndError
                XCTAssertEqual(e?.code, code, "\(what): \(error)")
                XCTAssertTrue(e?.message.contains(word) == true, "\(what): message should name \(word): \(error)")
            }
        }
    }

    func testWrongFrameLengthIsRefusedAndLeavesTheFrame() throws {
        for (name, stage, _) in try Self.suppressors() + [("off", try PassthroughNoiseSuppressor(), 0)] {
            for length in [stage.frameLength - 1, stage.frameLength + 1, 0] {
                let original = (0..<length).map { Int16(truncatingIfNeeded: $0 * 101) }
                var frame = original
                let status = frame.withUnsafeMutableBufferPointer { stage.process($0) }
                XCTAssertEqual(status, .wrongFrameLength, "\(name), \(length) samples")
                XCTAssertEqual(frame, original, "\(name), \(length) samples: frame must be left as it was")
            }
        }
    }

    /// After reset the suppressor learns the noise again with its settings intact.
    func testResetKeepsTheConfiguration() throws {
        let mic = try StageRunner.samples("noisy_snr10db_16k.wav")
        let first = Array(mic.prefix(3 * 16000 - 160)) // the noise before the first utterance (3.03 s)
        let last = [16000..<(3 * 16000 - 1760)]
        for (name, stage, minimumDrop) in try Self.suppressors() where name.contains("moderate") || name.contains("-15") {
            _ = StageRunner.run(stage, Array(mic.suffix(5 * 16000)))
            stage.reset()
            let out = StageRunner.run(stage, first)
            let drop = SignalMetrics.decibels(StageRunner.power(first, last) / StageRunner.power(out, last))
            XCTAssertGreaterThanOrEqual(drop, minimumDrop, "\(name) after reset, noisy_snr10db_16k.wav 1-2.9 s: drop \(fmt(drop)) dB")
        }
    }

    func testProcessAllocatesNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        for rate in [16000, 48000] {
            var random = SeededRandom(seed: 7)
            let noise = (0..<rate).map { _ in Int16(random.uniform() * 3000) }
            for (name, stage, _) in try Self.suppressors(rate: rate) + [("off", try PassthroughNoiseSuppressor(configuration: .init(sampleRate: rate)), 0)] {
                let n = stage.frameLength
                var frame = [Int16](repeating: 0, count: n)
                var checksum = 0
                for pass in 0..<2 { // pass 0 warms up (the runtime allocates type metadata on first use)
                    if pass == 1 { afe_allocation_counter_start() }
                    frame.withUnsafeMutableBufferPointer { f in
                        noise.withUnsafeBufferPointer { source in
                            for i in 0..<(pass == 0 ? 50 : 2000) {
                                let start = (i % (source.count / n)) * n
                                f.baseAddress!.update(from: source.baseAddress! + start, count: n)
                                checksum &+= Int(stage.process(f).code) &+ Int(f[0])
                            }
                        }
                    }
                }
                let allocations = afe_allocation_counter_stop()
                XCTAssertEqual(allocations, 0, "\(name) at \(rate) Hz: allocations in 2000 frames (checksum \(checksum))")
            }
        }
    }
}

private func fmt(_ value: Double) -> String { StageRunner.dB(value) }
