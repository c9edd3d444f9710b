@testable import AudioFrontEnd
import XCTest

/// The output's coherence with the reference (``BargeInCoherence``) on synthetic signals, and the decision's veto
/// on it (``FrontEndConfiguration/BargeIn/coherenceLimit``).
final class BargeInCoherenceTests: XCTestCase {
    /// Seeded white noise, 16-bit, at a tenth of full scale.
    private func noise(_ count: Int, seed: UInt64) -> [Int16] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int16(truncatingIfNeeded: Int(state >> 48) % 6554 - 3277)
        }
    }

    /// The statistic's mean over the last second of `output` against `reference` (10 ms frames at 16 kHz).
    private func coherence(output: [Int16], reference: [Int16]) -> Float {
        let meter = BargeInCoherence(sampleRate: 16000, frameLength: 160)
        var values: [Float] = []
        for start in stride(from: 0, to: output.count - 159, by: 160) {
            let value = output[start..<start + 160].withUnsafeBufferPointer { o in
                reference[start..<start + 160].withUnsafeBufferPointer { meter.update(output: o, reference: $0) }
            }
            values.append(value)
        }
        return values.suffix(100).reduce(0, +) / 100
    }

    func testAnEchoOfTheReferenceFollowsItAtItsLag() {
        let reference = noise(16000 * 4, seed: 1)
        // The reference 150 ms late, quieter, with independent noise 10 dB under it: a room's late leak.
        let late = 2400
        let floor = noise(reference.count, seed: 2)
        let output = (0..<reference.count).map { i -> Int16 in
            let echo: Int = i >= late ? Int(reference[i - late]) / 2 : 0
            return Int16(echo + Int(floor[i]) / 6)
        }
        XCTAssertGreaterThan(coherence(output: output, reference: reference), 0.6)
    }

    func testATalkerDoesNotFollowTheReference() {
        let reference = noise(16000 * 4, seed: 3)
        let talker = noise(reference.count, seed: 4)
        XCTAssertLessThan(coherence(output: talker, reference: reference), 0.08, "the estimator's floor")
    }

    func testAnEchoLaterThanTheLagsIsNotSeen() {
        let reference = noise(16000 * 4, seed: 5)
        let late = 16000 / 2 // 500 ms: past the 300 ms of lags
        let output = (0..<reference.count).map { i in i >= late ? reference[i - late] : 0 }
        XCTAssertLessThan(coherence(output: output, reference: reference), 0.08)
    }

    func testSilenceGivesNothing() {
        let silence = [Int16](repeating: 0, count: 16000)
        XCTAssertEqual(coherence(output: silence, reference: noise(16000, seed: 6)), 0)
        XCTAssertEqual(coherence(output: noise(16000, seed: 7), reference: silence), 0)
    }

    /// After a reset (the alignment jumped) the statistic starts high (one frame's spectra are always coherent)
    /// and falls back to the floor within a second.
    func testAResetStartsHighAndFalls() {
        let meter = BargeInCoherence(sampleRate: 16000, frameLength: 160)
        let reference = noise(16000 * 4, seed: 8), talker = noise(reference.count, seed: 9)
        func frame(_ k: Int) -> Float {
            talker[k * 160..<(k + 1) * 160].withUnsafeBufferPointer { o in
                reference[k * 160..<(k + 1) * 160].withUnsafeBufferPointer { meter.update(output: o, reference: $0) }
            }
        }
        for k in 0..<150 { _ = frame(k) }
        XCTAssertLessThan(frame(150), 0.1)
        meter.reset()
        XCTAssertGreaterThan(frame(151), 0.9)
        var last: Float = 1
        for k in 152..<300 { last = frame(k) }
        XCTAssertLessThan(last, 0.1)
        // A scheduled restart: 2 frames to reach it, then a window (512 samples: 4 frames of 160, rounded up); the
        // sixth update restarts.
        meter.restart(afterFrames: 2)
        XCTAssertEqual((300..<305).map { frame($0) < 0.1 }, [true, true, true, true, true])
        XCTAssertGreaterThan(frame(305), 0.9)
    }

    /// Echo-only frames, then talker frames 10 dB above the predicted echo, the first 20 with the coherence given
    /// and 0 after; returns the deciding talker frame (from 1) or nil.
    private func decidingFrame(limit: Float, coherence: Float) -> Int? {
        var settings = FrontEndConfiguration.BargeIn()
        settings.bandWeight = 0
        settings.coherenceLimit = limit
        var detector = BargeInDetector(settings)
        for frame in 0..<300 {
            _ = detector.process(frame: frame, playing: true, speech: false, aboveResidualDecibels: 0,
                                 belowReductionDecibels: 0, level: -50, mic: -40, reference: -20, coherence: 0.3)
        }
        for k in 1...100 where detector.process(frame: 300 + k, playing: true, speech: true, aboveResidualDecibels: 30,
                                                belowReductionDecibels: 30, level: -30, mic: -30, reference: -20,
                                                coherence: k <= 20 ? coherence : 0) {
            return k
        }
        return nil
    }

    func testAFollowingOutputIsVetoedUntilItsMeanFalls() {
        XCTAssertEqual(decidingFrame(limit: 0, coherence: 0.25), 8, "off: the sequential test decides at once")
        XCTAssertEqual(decidingFrame(limit: 0.12, coherence: 0.02), 8, "a talker: the same")
        // 20 frames at 0.25, then 0: the mean since the first counted frame falls under 0.12 at frame 42 (5 / 42).
        XCTAssertEqual(decidingFrame(limit: 0.12, coherence: 0.25), 42)
        var settings = FrontEndConfiguration.BargeIn()
        settings.coherenceLimit = 1.5
        XCTAssertThrowsError(try settings.validate())
    }
}
