import XCTest
@testable import AudioFrontEnd

final class DelayEstimatorTests: XCTestCase {
    /// Feeds a mic vector and its reference frame by frame; returns the estimate after each second.
    private func estimates(mic: [Int16], reference: [Int16], rate: Int) -> [Double?] {
        let estimator = DelayEstimator(sampleRate: rate)
        let n = rate / 100
        var out: [Double?] = []
        for frame in 0..<(min(mic.count, reference.count) / n) {
            mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { r in
                    estimator.process(mic: UnsafeBufferPointer(rebasing: m[(frame * n)..<((frame + 1) * n)]),
                                      reference: UnsafeBufferPointer(rebasing: r[(frame * n)..<((frame + 1) * n)]))
                }
            }
            if frame % 100 == 99 { out.append(estimator.delayMilliseconds) }
        }
        return out
    }

    func testFindsTheBulkDelayOfEveryEchoVectorWithinThreeSeconds() throws {
        for (delay, rate) in [(0, 16000), (40, 16000), (120, 16000), (250, 16000), (400, 16000), (40, 48000), (120, 48000)] {
            let name = "echo_d\(delay)ms_\(rate / 1000)k.wav"
            let mic = try TestVectors.int16(name).samples
            let reference = try TestVectors.int16("farend_\(rate / 1000)k.wav").samples
            let series = estimates(mic: mic, reference: reference, rate: rate)
            // From 3 s on, every estimate is within 6 ms of the true delay.
            for (second, estimate) in series.enumerated() where second >= 2 {
                guard let estimate else {
                    XCTFail("\(name): no estimate after \(second + 1) s"); continue
                }
                XCTAssertEqual(estimate, Double(delay), accuracy: 6, "\(name): estimate after \(second + 1) s")
            }
        }
    }

    func testHoldsNoEstimateWithoutFarEnd() throws {
        let mic = try TestVectors.int16("nearend_16k.wav").samples
        let silence = [Int16](repeating: 0, count: mic.count)
        XCTAssertTrue(estimates(mic: mic, reference: silence, rate: 16000).allSatisfy { $0 == nil })
    }

    /// A voiced far end (glottal pulses at a pitch gliding 95–125 Hz, in syllables of 150–300 ms with pauses), its
    /// echo 480 ms later with a reflection 6 ms after the direct path at 0.8 of its level and a decaying sparse
    /// tail, under white noise 30 dB below: the pulse train repeats every 8–10 ms, so onset or envelope
    /// correlations see a comb of nearly equal peaks there (the onset correlation used before locked 10 ms off on
    /// such scenes at 480–500 ms, and reads 486 ms here: the reflection). Deterministic (a fixed linear
    /// congruential generator).
    static func voicedEcho(rate: Int, seconds: Int, delayMilliseconds: Double) -> (mic: [Int16], reference: [Int16]) {
        var seed: UInt64 = 12345
        func uniform() -> Double {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let count = rate * seconds
        var far = [Double](repeating: 0, count: count)
        var t = 0
        var phase = 0.0
        while t < count {
            let syllable = Int((0.15 + 0.15 * uniform()) * Double(rate))
            let pause = Int((0.03 + 0.2 * uniform()) * Double(rate))
            let startPitch = 95 + 30 * uniform(), endPitch = 95 + 30 * uniform()
            for i in 0..<min(syllable, count - t) {
                let x = Double(i) / Double(syllable)
                phase += (startPitch + (endPitch - startPitch) * x) / Double(rate)
                let envelope = sin(Double.pi * x)
                // A pulse per period, smoothed over a few samples (a crude glottal pulse), plus breath noise.
                let pulse = exp(-pow((phase - phase.rounded()) * 40, 2))
                far[t + i] = 6000 * envelope * (pulse + 0.05 * (uniform() - 0.5))
            }
            t += syllable + pause
        }
        let direct = Int(delayMilliseconds * Double(rate) / 1000)
        let reflection = direct + 6 * rate / 1000
        var mic = [Double](repeating: 0, count: count)
        // The diffuse tail: 50 taps 2 ms apart over 100 ms, decaying by 60 dB.
        let spacing = rate / 500
        var tail = [Double](repeating: 0, count: 50)
        for k in 0..<tail.count { tail[k] = 0.3 * (uniform() - 0.5) * pow(10, -3 * Double(k) / 50) }
        for n in 0..<count {
            var v = 0.0
            if n >= direct { v += 0.5 * far[n - direct] }
            if n >= reflection { v += 0.4 * far[n - reflection] }
            mic[n] = v
        }
        for n in 0..<count where far[n] != 0 {
            for k in 0..<tail.count where n + reflection + (k + 1) * spacing < count {
                mic[n + reflection + (k + 1) * spacing] += tail[k] * far[n]
            }
        }
        for n in 0..<count { mic[n] += 60 * (uniform() - 0.5) }
        func clip(_ x: Double) -> Int16 { Int16(max(-32768, min(32767, x.rounded()))) }
        return (mic.map(clip), far.map(clip))
    }

    func testFindsFourHundredEightyMillisecondsOnAVoicedFarEndWithinThreeSeconds() {
        for rate in [16000, 48000] {
            let (mic, reference) = Self.voicedEcho(rate: rate, seconds: 12, delayMilliseconds: 480)
            let series = estimates(mic: mic, reference: reference, rate: rate)
            for (second, estimate) in series.enumerated() where second >= 2 {
                guard let estimate else { XCTFail("\(rate) Hz: no estimate after \(second + 1) s"); continue }
                XCTAssertEqual(estimate, 480, accuracy: 2, "\(rate) Hz: estimate after \(second + 1) s (the direct path, not the reflection 6 ms later or a pitch period off)")
            }
        }
    }
}
