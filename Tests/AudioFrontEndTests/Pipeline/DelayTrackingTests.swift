import XCTest
@testable import AudioFrontEnd

/// The pieces that turn raw delay estimates into the alignment and the drift figure.
final class DelayTrackingTests: XCTestCase {
    /// Excursions shorter than half the window are ignored; a slow ramp (drift) is followed; a real jump is
    /// taken after `jumpConfirmations` agreeing estimates.
    func testTrackerIgnoresExcursionsFollowsRampsAndTakesJumps() {
        let rate = 16000
        let tracker = DelayTracker(sampleRate: rate)
        let ms = Double(rate) / 1000
        // Steady at 120 ms with 5 ms excursions for 12 of every 33 estimates (a reflection taken for a while).
        XCTAssertEqual(tracker.capacity, 33)
        for i in 0..<330 { tracker.add((i % 33 < 12 ? 125 : 120) * ms) }
        XCTAssertEqual(tracker.median! / ms, 120, accuracy: 0.01, "short excursions ignored")
        // A ramp of 0.0125 ms per estimate (0.1 ms/s at eight estimates a second: 100 ppm).
        var value = 120.0
        for _ in 0..<800 { value += 0.0125; tracker.add(value * ms) }
        XCTAssertEqual(tracker.median! / ms, value, accuracy: 0.3, "the ramp followed within half the window's lag (0.2 ms)")
        // A jump of 100 ms: taken after the confirmations, not before.
        for k in 1...tracker.jumpConfirmations {
            tracker.add((value + 100) * ms)
            if k < tracker.jumpConfirmations {
                XCTAssertEqual(tracker.median! / ms, value, accuracy: 1, "\(k) estimate(s) after the jump: not yet")
            }
        }
        XCTAssertEqual(tracker.median! / ms, value + 100, accuracy: 0.01, "the jump is taken")
        tracker.reset()
        XCTAssertNil(tracker.median)
        tracker.add(40 * ms)
        XCTAssertEqual(tracker.median! / ms, 40, accuracy: 0.01, "the first estimate stands at once")
    }

    /// Adds a point every 0.25 s from `t` until `end`: 120 ms + `slope` × t, plus uniform jitter of ±`jitter` s.
    static func addRamp(_ fit: inout DriftFit, _ t: inout Double, until end: Double, slope: Double, jitter: Double,
                        _ random: inout SeededRandom) {
        while t < end {
            fit.add(seconds: t, delay: 0.120 + slope * t + jitter * Double(random.uniform()))
            t += 0.25
        }
    }

    /// The fit reports the slope of noisy points once it has enough of them, and follows a changed slope.
    func testDriftFitFindsTheSlopeThroughJitter() {
        var fit = DriftFit()
        var random = SeededRandom(seed: 7)
        var t = 0.0
        Self.addRamp(&fit, &t, until: 50, slope: 100e-6, jitter: 0.0025, &random)
        XCTAssertNil(fit.slope, "under a minute: no figure yet")
        Self.addRamp(&fit, &t, until: 300, slope: 100e-6, jitter: 0.0025, &random)
        XCTAssertEqual(fit.slope! * 1e6, 100, accuracy: 5, "+100 ppm through ±2.5 ms jitter")
        let base = 0.120 + 100e-6 * t
        let turn = t
        while t < turn + 900 {
            fit.add(seconds: t, delay: base - 50e-6 * (t - turn) + 0.0025 * Double(random.uniform()))
            t += 0.25
        }
        XCTAssertEqual(fit.slope! * 1e6, -50, accuracy: 10, "a changed drift shows within 15 minutes (5 time constants)")
    }

    /// What the drift correction of the delay estimate (`DelayEstimator.delaySamples`) builds on: the tracker
    /// knows when the middle of the estimates its median spans was made (under a ramp the median is that
    /// moment's delay), forgets the old run at a jump, and the fit gives an early slope after 5 s / 20 points.
    func testTrackerMiddleTimeAndEarlySlope() {
        let rate = 16000, ms = 16.0
        let tracker = DelayTracker(sampleRate: rate)
        XCTAssertNil(tracker.middleSeconds)
        // 200 ppm: 0.2 ms per second, an estimate every 0.25 s.
        for i in 0..<40 { tracker.add((120 + 0.05 * Double(i)) * ms, seconds: 0.25 * Double(i)) }
        // The median spans the newest 33 (i = 7...39): their middle is i = 23, made at 5.75 s.
        XCTAssertEqual(tracker.middleSeconds!, 5.75, accuracy: 1e-9)
        XCTAssertEqual(tracker.median! / ms, 120 + 0.05 * 23, accuracy: 1e-6, "the median is the middle one's delay")
        var jumped = false
        for i in 0..<4 { jumped = tracker.add(160 * ms, seconds: 10 + 0.25 * Double(i)) || jumped }
        XCTAssertTrue(jumped, "four agreeing estimates 40 ms away complete a jump")
        XCTAssertEqual(tracker.middleSeconds!, 10.25, accuracy: 1e-9, "after a jump only the new run counts")

        var fit = DriftFit()
        var random = SeededRandom(seed: 3)
        var t = 0.0
        Self.addRamp(&fit, &t, until: 4.9, slope: 200e-6, jitter: 0.0001, &random)
        XCTAssertNil(fit.earlySlope, "under 5 s: no early slope")
        Self.addRamp(&fit, &t, until: 8, slope: 200e-6, jitter: 0.0001, &random)
        XCTAssertEqual(fit.earlySlope! * 1e6, 200, accuracy: 30, "200 ppm from 8 s of points with ±0.1 ms jitter")
        XCTAssertNil(fit.slope, "the alignment's slope still waits for a minute")
    }

    /// The reference shift moves only when the estimate leaves the hysteresis band, and keeps the margin.
    func testAlignmentHysteresisAndMargin() {
        var alignment = EchoAlignment(sampleRate: 16000, alignment: .automatic(maximumDelayMilliseconds: 1000))
        XCTAssertTrue(alignment.update(estimateMilliseconds: 120))
        XCTAssertEqual(alignment.shiftMilliseconds, 110, "10 ms margin left to the canceller")
        XCTAssertFalse(alignment.update(estimateMilliseconds: 123.5), "3.5 ms: inside the hysteresis")
        XCTAssertFalse(alignment.update(estimateMilliseconds: 116.5))
        XCTAssertTrue(alignment.update(estimateMilliseconds: 125))
        XCTAssertEqual(alignment.shiftMilliseconds, 115)
        XCTAssertEqual(alignment.residualMilliseconds(estimate: 125), 10)
        // With a known drift the shift slews by the drift every frame: 100 ppm over 100 s of 10 ms frames.
        for frame in 0..<10000 { // the estimate moves with the drift: 0.001 ms a frame
            let estimate = 125 + Double(frame + 1) * 0.001
            XCTAssertFalse(alignment.update(estimateMilliseconds: estimate, driftPartsPerMillion: 100, frameLength: 160))
        }
        XCTAssertEqual(alignment.shiftMilliseconds, 125, accuracy: 0.001, "10 ms of drift followed without a jump")
        var fixed = EchoAlignment(sampleRate: 16000, alignment: .fixed(milliseconds: 200))
        XCTAssertFalse(fixed.update(estimateMilliseconds: 50), "a fixed delay never moves")
        XCTAssertEqual(fixed.shiftMilliseconds, 190)
    }

    /// The fractional reader delays a band-limited signal by a non-integer number of samples accurately.
    func testFractionalDelayMatchesTheAnalyticDelay() {
        let history = ReferenceHistory(minimumCapacity: 4096)
        let f1 = 0.031, f2 = 0.207 // cycles per sample: about 500 Hz and 3.3 kHz at 16 kHz
        func x(_ t: Double) -> Double { 8000 * sin(2 * .pi * f1 * t) + 4000 * sin(2 * .pi * f2 * t + 1) }
        let samples = (0..<4000).map { Int16(x(Double($0)).rounded()) }
        samples.withUnsafeBufferPointer { history.append($0) }
        let reader = FractionalDelay(frameLength: 160)
        var out = [Int16](repeating: 0, count: 160)
        for delay in [100.0, 100.3, 100.5, 231.77] {
            out.withUnsafeMutableBufferPointer { reader.read(history, position: 2000, delay: delay, into: $0) }
            let expected = (0..<160).map { Int16(x(Double(2000 + $0) - delay).rounded()) }
            let snr = SignalMetrics.snr(reference: expected, test: out)
            XCTAssertGreaterThan(snr, 40, "delay \(delay) samples: SNR \(snr) dB")
        }
    }
}
