import XCTest
@testable import AudioFrontEnd

/// The energy detector's noise deviation (stationary vs fluctuating noise) and the longer segmenter onset the
/// front end derives from it (FrontEndConfiguration.FluctuatingNoiseOnset).
final class VoiceActivityFluctuatingNoiseTests: XCTestCase {
    /// 10 ms frames of seeded white noise (sum of four uniforms); frame `i` at `level(i)` dBFS RMS.
    private func noise(frames: Int, seed: UInt64, level: (Int, inout SeededRandom) -> Double) -> [Int16] {
        var random = SeededRandom(seed: seed)
        var out: [Int16] = []
        out.reserveCapacity(frames * 160)
        for i in 0..<frames {
            let scale = 32768 * pow(10, level(i, &random) / 20) * 3.0.squareRoot()
            for _ in 0..<160 {
                let sum = (0..<4).reduce(0.0) { total, _ in total + random.unitDouble() - 0.5 }
                out.append(Int16(clamping: Int((scale * sum).rounded())))
            }
        }
        return out
    }

    private func deviation(after signal: [Int16]) throws -> Float {
        let detector = try EnergyVoiceActivityDetector(FrontEndConfiguration.VoiceDetection.defaultEnergyDetector)
        signal.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count - 159, by: 160) {
                _ = detector.process(UnsafeBufferPointer(rebasing: all[start..<start + 160]))
            }
        }
        return detector.noiseDeviationDecibels
    }

    /// Steady noise stays below the default 1.8 dB where the onset starts to grow; noise whose level jumps by
    /// up to ±5 dB from one 50 ms stretch to the next (bursts of a crowd) rises above it.
    func testDeviationSeparatesSteadyFromFluctuatingNoise() throws {
        let steady = try deviation(after: noise(frames: 1000, seed: 7) { _, _ in -40 })
        var jump = 0.0
        let fluctuating = try deviation(after: noise(frames: 1000, seed: 7) { i, random in
            if i % 5 == 0 { jump = random.unitDouble() * 10 - 5 }
            return -40 + jump
        })
        let threshold = FrontEndConfiguration.FluctuatingNoiseOnset().deviationDecibels
        XCTAssertLessThan(steady, threshold - 0.5, "steady white noise")
        XCTAssertGreaterThan(fluctuating, threshold, "noise jumping ±5 dB every 50 ms")
    }

    func testOnsetGrowsWithDeviationUpToTheMaximum() throws {
        let rule = FrontEndConfiguration.FluctuatingNoiseOnset()
        XCTAssertEqual(rule.frames(deviation: 0.8, baseFrames: 13), 13)
        XCTAssertEqual(rule.frames(deviation: 1.8, baseFrames: 13), 13)
        XCTAssertEqual(rule.frames(deviation: 2.3, baseFrames: 13), 23) // 0.5 dB x 200 ms/dB = 100 ms
        XCTAssertEqual(rule.frames(deviation: 9, baseFrames: 13), 30) // capped at 300 ms
        XCTAssertEqual(rule.frames(deviation: 9, baseFrames: 40), 40) // never below the segmenter's own onset
        for bad in [FrontEndConfiguration.FluctuatingNoiseOnset(maximumMilliseconds: 305),
                    FrontEndConfiguration.FluctuatingNoiseOnset(deviationDecibels: -1)] {
            XCTAssertThrowsError(try bad.validate())
            var configuration = FrontEndConfiguration()
            configuration.voiceDetection?.fluctuatingNoiseOnset = bad
            XCTAssertThrowsError(try FrontEnd(configuration: configuration))
        }
    }
}
