import AllocationCounter
import XCTest
@testable import AudioFrontEnd

/// The VAD backends at every rate they accept, their refusals of bad settings, reset and real-time safety.
final class VoiceActivityLifecycleTests: XCTestCase {
    /// `x` at `inRate` resampled to `outRate` by linear interpolation after a [1 2 1]/4 smoothing when going down:
    /// crude, but a VAD only needs the speech band to survive.
    private func resampled(_ x: [Int16], from inRate: Int, to outRate: Int) -> [Int16] {
        let smooth = outRate < inRate
        let source: [Double] = x.indices.map { i in
            guard smooth else { return Double(x[i]) }
            let a = Double(x[max(i - 1, 0)]), b = Double(x[i]), c = Double(x[min(i + 1, x.count - 1)])
            return (a + 2 * b + c) / 4
        }
        let count = x.count * outRate / inRate
        return (0..<count).map { j in
            let t = Double(j) * Double(inRate) / Double(outRate)
            let i = min(Int(t), source.count - 2), f = t - Double(i)
            return Int16(clamping: Int((source[i] * (1 - f) + source[i + 1] * f).rounded()))
        }
    }

    /// `x` plus white noise at `dbfs` RMS from a seeded SeededRandom (sum of four uniforms).
    private func withNoise(_ x: [Int16], dbfs: Double, seed: UInt64) -> [Int16] {
        var state = seed
        func uniform() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53) - 0.5
        }
        let scale = 32768 * pow(10, dbfs / 20) * 3.0.squareRoot() // four uniforms: variance 1/3
        return x.map { Int16(clamping: Int((Double($0) + scale * (uniform() + uniform() + uniform() + uniform())).rounded())) }
    }

    /// Clean near-end speech with -60 dBFS noise, at each rate each backend takes: frame F1 ≥ 0.90.
    func testCleanSpeechIsFoundAtEveryRate() throws {
        let (speech16, _) = try TestVectors.int16("nearend_16k.wav")
        let (speech48, _) = try TestVectors.int16("nearend_48k.wav")
        let intervals16 = try TestVectors.entry("nearend_16k.wav").speechIntervals
        let intervals48 = try TestVectors.entry("nearend_48k.wav").speechIntervals
        let seed: UInt64 = 2024
        for rate in [8000, 16000, 32000, 44100, 48000] {
            let clean = rate == 48000 ? speech48 : (rate == 16000 ? speech16 : resampled(speech16, from: 16000, to: rate))
            let signal = withNoise(clean, dbfs: -60, seed: seed)
            let labels = SignalMetrics.frameLabels(intervals: rate == 48000 ? intervals48 : intervals16,
                                                   frameCount: signal.count / (rate / 100))
            var detectors: [(String, any VoiceActivityDetector)] = [
                ("energy", try EnergyVoiceActivityDetector(.init(sampleRate: rate))),
            ]
            if SampleRates.webRTCNative.contains(rate) {
                detectors.append(("webrtc", try WebRTCVoiceActivityDetector(.init(sampleRate: rate))))
            }
            for (name, detector) in detectors {
                XCTAssertEqual(detector.frameLength, rate / 100, "\(name) at \(rate) Hz")
                let score = SignalMetrics.f1(decisions: VoiceActivityMeasurement.decisions(detector, signal), labels: labels)
                XCTAssertGreaterThanOrEqual(score.f1, 0.90,
                                            "\(name) at \(rate) Hz, clean speech + -60 dBFS noise (seed \(seed)): \(score)")
            }
        }
    }

    private func assertThrows(_ code: AudioFrontEndError.Code, naming words: [String], _ context: String,
                              _ body: () throws -> Any, line: UInt = #line) {
        XCTAssertThrowsError(try body(), context, line: line) { error in
            guard let error = error as? AudioFrontEndError else {
                return XCTFail("\(context): not an AudioFrontEndError: \(error)", line: line)
            }
            XCTAssertEqual(error.code, code, "\(context): \(error)", line: line)
            for word in words {
                XCTAssertTrue(error.message.contains(word), "\(context): '\(error.message)' should name \(word)", line: line)
            }
        }
    }

    func testBadSettingsThrowErrorsNamingTheProblem() {
        for rate in [44100, 22050, 11025, 96000, 0] {
            assertThrows(.unsupportedSampleRate, naming: ["WebRTC VAD", "\(rate)"], "webrtc at \(rate) Hz") {
                try WebRTCVoiceActivityDetector(.init(sampleRate: rate))
            }
        }
        for rate in [22050, 11025, 4000, 96000] {
            assertThrows(.unsupportedSampleRate, naming: ["EnergyVoiceActivityDetector", "\(rate)"], "energy at \(rate) Hz") {
                try EnergyVoiceActivityDetector(.init(sampleRate: rate))
            }
        }
        for value: Float in [1.01, -1.5, 2, .nan, .infinity] {
            assertThrows(.invalidConfiguration, naming: ["speech_noise_threshold"], "speech_noise_threshold \(value)") {
                try SpeechNoiseThreshold(value)
            }
        }
        let energyCases: [(String, (inout EnergyVoiceActivityDetector.Configuration) -> Void)] = [
            ("thresholdDecibels", { $0.thresholdDecibels = 0.5 }),
            ("releaseDecibels", { $0.releaseDecibels = 3 }), // more than half the 4 dB threshold
            ("hangoverMilliseconds", { $0.hangoverMilliseconds = 105 }),
            ("hangoverAfterMilliseconds", { $0.hangoverAfterMilliseconds = 0 }),
            ("noiseWindowMilliseconds", { $0.noiseWindowMilliseconds = 1200 }),
            ("lowCutHz", { $0.lowCutHz = 20 }),
            ("minimumSpeechDecibels", { $0.minimumSpeechDecibels = 3 }),
        ]
        for (name, change) in energyCases {
            var configuration = EnergyVoiceActivityDetector.Configuration()
            change(&configuration)
            assertThrows(.invalidConfiguration, naming: [name], "energy \(name)") { try EnergyVoiceActivityDetector(configuration) }
        }
    }

    func testWrongFrameLengthIsRefusedWithoutChangingTheDecision() throws {
        let detectors: [any VoiceActivityDetector] = [try EnergyVoiceActivityDetector(), try WebRTCVoiceActivityDetector()]
        let short = [Int16](repeating: 1000, count: 159)
        for detector in detectors {
            XCTAssertEqual(short.withUnsafeBufferPointer { detector.process($0) }, .wrongFrameLength, "\(type(of: detector))")
            XCTAssertFalse(detector.isSpeech, "\(type(of: detector))")
        }
    }

    /// After reset a detector decides exactly as a new one on the same input.
    func testResetForgetsHistory() throws {
        let (samples, _) = try TestVectors.int16("noisy_snr10db_16k.wav")
        let head = Array(samples[0..<(8 * 16000)])
        let pairs: [(any VoiceActivityDetector, any VoiceActivityDetector)] = [
            (try EnergyVoiceActivityDetector(), try EnergyVoiceActivityDetector()),
            (try WebRTCVoiceActivityDetector(), try WebRTCVoiceActivityDetector()),
        ]
        for (used, fresh) in pairs {
            let other = Array(samples[(10 * 16000)..<(18 * 16000)])
            _ = VoiceActivityMeasurement.decisions(used, other)
            used.reset()
            XCTAssertFalse(used.isSpeech, "\(type(of: used)) after reset")
            let afterReset = VoiceActivityMeasurement.decisions(used, head)
            let reference = VoiceActivityMeasurement.decisions(fresh, head)
            XCTAssertEqual(afterReset, reference, "\(type(of: used)): decisions after reset differ from a new detector's")
            XCTAssertTrue(reference.contains(true) && reference.contains(false), "\(type(of: used)): degenerate input")
        }
    }

    func testProcessAndSegmenterAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let (samples, _) = try TestVectors.int16("noisy_snr10db_16k.wav")
        let energy = try EnergyVoiceActivityDetector()
        let webrtc = try WebRTCVoiceActivityDetector()
        var segmenter = try SpeechSegmenter(.init(endSilenceMilliseconds: 200, maximumSegmentMilliseconds: 1000))
        var events = 0, speechFrames = 0
        samples.withUnsafeBufferPointer { all in
            let frames = all.count / 160
            for pass in 0..<2 { // pass 0 warms up (the runtime allocates type metadata on first use)
                if pass == 1 { afe_allocation_counter_start() }
                for f in 0..<(pass == 0 ? 200 : 3000) {
                    let frame = UnsafeBufferPointer(rebasing: all[((f % frames) * 160)..<((f % frames + 1) * 160)])
                    _ = energy.process(frame)
                    _ = webrtc.process(frame)
                    if energy.isSpeech { speechFrames += 1 }
                    if segmenter.process(isSpeech: energy.isSpeech || webrtc.isSpeech) != nil { events += 1 }
                }
                if segmenter.finish() != nil { events += 1 }
            }
        }
        let allocations = afe_allocation_counter_stop()
        XCTAssertEqual(allocations, 0, "energy + WebRTC process and segmenter over 3000 frames")
        XCTAssertGreaterThan(events, 4, "the loop should have produced segment events")
        XCTAssertGreaterThan(speechFrames, 300, "the loop should have found speech")
    }
}
