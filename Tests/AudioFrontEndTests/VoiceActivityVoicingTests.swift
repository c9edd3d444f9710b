import AllocationCounter
import XCTest
@testable import AudioFrontEnd

/// The energy detector's voicing rule (EnergyVoiceActivityDetector.Configuration.Voicing): a harmonic, speech-like
/// sound 0 dB against steady pink-like noise (3 dB over the noise alone, under the detector's 5 dB margin) is
/// found with the rule and missed without it, the noise alone stays noise, and nothing allocates.
final class VoiceActivityVoicingTests: XCTestCase {
    /// 10 ms frames at 16 kHz: low-passed white noise (a pink-like tilt) at `noiseLevel` dBFS RMS, plus from frame
    /// `voicedFrames.lowerBound` a 120 Hz pulse-like tone (20 harmonics at 1/k) of the same power.
    private func signal(frames: Int, voicedFrames: Range<Int>, seed: UInt64) -> [Int16] {
        var random = SeededRandom(seed: seed)
        var noise = [Double](repeating: 0, count: frames * 160)
        var state = 0.0
        for i in noise.indices {
            state = 0.5 * state + (random.unitDouble() - 0.5)
            noise[i] = state
        }
        let noiseScale = 32768 * pow(10, -40.0 / 20) / (noise.map { $0 * $0 }.reduce(0, +) / Double(noise.count)).squareRoot()
        let toneRMS = (1...20).reduce(0.0) { $0 + 0.5 / Double($1 * $1) }.squareRoot()
        let toneScale = 32768 * pow(10, -40.0 / 20) / toneRMS
        return (0..<noise.count).map { i in
            let voiced = voicedFrames.contains(i / 160)
            let t = Double(i) / 16000
            let tone = voiced ? (1...20).reduce(0.0) { $0 + sin(2 * Double.pi * 120 * Double($1) * t) / Double($1) } : 0
            let x = noiseScale * noise[i] + toneScale * tone
            return Int16(clamping: Int(x.rounded()))
        }
    }

    private func speechShares(_ voicing: EnergyVoiceActivityDetector.Configuration.Voicing?, samples: [Int16],
                              voiced: Range<Int>) throws -> (voiced: Double, noise: Double, detector: EnergyVoiceActivityDetector) {
        var c = FrontEndConfiguration.VoiceDetection.defaultEnergyDetector
        c.voicing = voicing
        let detector = try EnergyVoiceActivityDetector(c)
        var hits = 0, falseHits = 0, noiseFrames = 0
        samples.withUnsafeBufferPointer { all in
            for f in 0..<(all.count / 160) {
                _ = detector.process(UnsafeBufferPointer(rebasing: all[(f * 160)..<((f + 1) * 160)]))
                if voiced.contains(f) { hits += detector.isSpeech ? 1 : 0 }
                if f >= 300 && !voiced.contains(f) && !(voiced.upperBound..<voiced.upperBound + 20).contains(f) {
                    noiseFrames += 1
                    falseHits += detector.isSpeech ? 1 : 0
                }
            }
        }
        return (Double(hits) / Double(voiced.count), Double(falseHits) / Double(noiseFrames), detector)
    }

    func testVoicingFindsHarmonicSoundInSteadyNoiseThatEnergyAloneMisses() throws {
        let voiced = 600..<900
        let samples = signal(frames: 1200, voicedFrames: voiced, seed: 11)
        let rule = EnergyVoiceActivityDetector.Configuration.Voicing(periodicityAboveNoise: 0.15, marginDecibels: 1,
                                                                      maximumNoiseDeviationDecibels: 1.8,
                                                                      maximumNoisePeriodicity: 0.4, cutoffHz: 1000)
        let without = try speechShares(nil, samples: samples, voiced: voiced)
        let with = try speechShares(rule, samples: samples, voiced: voiced)
        XCTAssertLessThan(without.voiced, 0.2, "energy alone, harmonic frames called speech (3 dB over the noise)")
        XCTAssertGreaterThan(with.voiced, 0.8, "with voicing \(rule), harmonic frames called speech (noise periodicity \(with.detector.noisePeriodicity))")
        XCTAssertLessThan(with.noise, 0.03, "with voicing \(rule), noise-only frames called speech")
        XCTAssertLessThan(with.detector.noisePeriodicity, 0.4, "the noise's learned periodicity")
    }

    /// While the far end plays the front end suspends the rule (the default detector's `whilePlaying` is false):
    /// then the harmonic sound is judged on energy alone, and the noise's periodicity is not learned (residual
    /// echo is voiced and would teach the noise a pitch).
    func testSuspendedVoicingJudgesOnEnergyAloneAndLearnsNoPitch() throws {
        let defaults = FrontEndConfiguration.VoiceDetection.defaultEnergyDetector
        XCTAssertEqual(defaults.voicing?.whilePlaying, false, "the front end's default: the rule outside playback")
        XCTAssertEqual(defaults.voicing?.marginDecibels, EnergyVoiceActivityDetector.Configuration.Voicing().marginDecibels)
        let voiced = 600..<900
        let samples = signal(frames: 1200, voicedFrames: voiced, seed: 11)
        let suspended = try EnergyVoiceActivityDetector(defaults), free = try EnergyVoiceActivityDetector(defaults)
        var hits = (suspended: 0, free: 0)
        var learned: Float = 0
        samples.withUnsafeBufferPointer { all in
            for f in 0..<(all.count / 160) {
                suspended.suspendsVoicing = (500..<900).contains(f)
                if f == 500 { learned = suspended.noisePeriodicity }
                let frame = UnsafeBufferPointer(rebasing: all[(f * 160)..<((f + 1) * 160)])
                _ = suspended.process(frame)
                _ = free.process(frame)
                if f == 899 { XCTAssertEqual(suspended.noisePeriodicity, learned, "no pitch learned while suspended") }
                if voiced.contains(f) {
                    hits.suspended += suspended.isSpeech ? 1 : 0
                    hits.free += free.isSpeech ? 1 : 0
                }
            }
        }
        XCTAssertLessThan(learned, 0.4, "the noise's periodicity was learned before")
        XCTAssertLessThan(Double(hits.suspended) / Double(voiced.count), 0.2, "suspended: harmonic frames 3 dB over the noise called speech")
        XCTAssertGreaterThan(Double(hits.free) / Double(voiced.count), 0.8, "not suspended: the rule finds them")
    }

    func testNoisePeriodicityStartsHighSoTheRuleWaitsForTheNoise() throws {
        var c = FrontEndConfiguration.VoiceDetection.defaultEnergyDetector
        c.voicing = .init()
        let detector = try EnergyVoiceActivityDetector(c)
        XCTAssertEqual(detector.noisePeriodicity, 1)
        XCTAssertThrowsError(try EnergyVoiceActivityDetector({ var b = c; b.voicing?.cutoffHz = 100; return b }()))
    }

    func testVoicingAllocatesNothingAfterWarmUp() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let samples = signal(frames: 400, voicedFrames: 200..<300, seed: 5)
        var c = FrontEndConfiguration.VoiceDetection.defaultEnergyDetector
        c.voicing = .init(maximumNoisePeriodicity: 0.4)
        let detector = try EnergyVoiceActivityDetector(c)
        var speech = 0
        samples.withUnsafeBufferPointer { all in
            for pass in 0..<2 {
                if pass == 1 { afe_allocation_counter_start() }
                for f in 0..<(pass == 0 ? 100 : 2000) {
                    let k = f % 400
                    _ = detector.process(UnsafeBufferPointer(rebasing: all[(k * 160)..<((k + 1) * 160)]))
                    speech += detector.isSpeech ? 1 : 0
                }
            }
        }
        XCTAssertEqual(afe_allocation_counter_stop(), 0, "energy detector with voicing over 2000 frames")
        XCTAssertGreaterThan(speech, 0)
    }
}
