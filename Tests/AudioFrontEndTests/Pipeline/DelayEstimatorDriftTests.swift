import AudioFrontEnd
import Foundation
import XCTest
@testable import AudioFrontEnd

/// The delay estimate under clock drift, against the truth at every 100 ms: `echo_d120ms_16k.wav` looped for
/// minutes and resampled so the mic clock runs ±200 ppm against the reference's (the worst drift the issue names).
final class DelayEstimatorDriftTests: XCTestCase {
    /// The 120 ms echo vector looped for `seconds` (``FrontEndDriftTests/driftingEcho(seconds:slowMic:hundreds:)``),
    /// the mic clock 200 ppm fast (the echo lags more and more) or slow. libsamplerate's output is time-aligned
    /// (``SampleRateConverter``), so mic sample n hears the reference at n / ratio − 120 ms: the delay truth is
    /// 120 ms + n (1 − 1 / ratio).
    static func loop(seconds: Int, slowMic: Bool) throws -> (mic: [Int16], reference: [Int16], ratio: Double) {
        let (mic, reference) = try FrontEndDriftTests.driftingEcho(seconds: seconds, slowMic: slowMic, hundreds: 2)
        return (Array(mic.prefix(reference.count)), reference, slowMic ? 10000.0 / 10002 : 10002.0 / 10000)
    }

    /// Over a 4-minute loop, for both signs of 200 ppm (the echo moves 48 ms), every 100 ms: from 3 s after the
    /// first echo (0.42 s) the estimate is within 3 ms of the truth (under the alignment's 4 ms hysteresis), and
    /// from 25 s to the end within 2 ms (the delay row). Why 25 s: the drift is corrected once its line
    /// is believed, 5 s of points after the estimate settled, and this far end pauses for 3.8 s of every 21.
    /// Before the fix the estimate stood 6–8 ms early for seconds (the blurred spectrum's peaks before the direct
    /// path: 733 of 2366 estimates more than 2 ms off at +200 ppm, 199 at −200 ppm).
    func testEstimateStaysWithinTwoMillisecondsUnderTwoHundredPartsPerMillion() throws {
        for slowMic in [false, true] {
            let (mic, reference, ratio) = try Self.loop(seconds: 240, slowMic: slowMic)
            let estimator = DelayEstimator(sampleRate: 16000)
            let n = 160
            var worst = (error: 0.0, second: 0.0), outside = 0, late = 0, checked = 0, lastOutside = 0.0
            mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { r in
                    for frame in 0..<(mic.count / n) {
                        estimator.process(mic: UnsafeBufferPointer(rebasing: m[(frame * n)..<((frame + 1) * n)]),
                                          reference: UnsafeBufferPointer(rebasing: r[(frame * n)..<((frame + 1) * n)]))
                        let end = Double((frame + 1) * n)
                        guard frame % 10 == 9, end / 16000 >= 3.42 else { continue }
                        let truth = 120 + end * (1 - 1 / ratio) / 16
                        let error = abs((estimator.delayMilliseconds ?? .infinity) - truth)
                        checked += 1
                        if ProcessInfo.processInfo.environment["AFE_VERBOSE"] != nil, frame % 50 == 49 {
                            print(String(format: "  %.1f s truth %.2f est %.2f raw %.2f conf %.1f", end / 16000, truth,
                                         estimator.delayMilliseconds ?? .nan, (estimator.latestSamples ?? .nan) / 16,
                                         estimator.confidence))
                        }
                        if error > 2 { outside += 1; lastOutside = end / 16000 }
                        if error > worst.error { worst = (error, end / 16000) }
                        if end / 16000 >= 25, error > 2 { late += 1 }
                    }
                }
            }
            let name = slowMic ? "-200 ppm" : "+200 ppm"
            print(String(format: "%@: worst |error| %.2f ms at %.1f s, %d of %d estimates off by more than 2 ms, the last at %.1f s; drift reported %.1f ppm",
                         name, worst.error, worst.second, outside, checked, lastOutside, estimator.driftPartsPerMillion ?? .nan))
            XCTAssertLessThanOrEqual(worst.error, 3, "\(name): worst |error| from 3 s after the first echo (at \(worst.second) s)")
            XCTAssertEqual(late, 0, "\(name): estimates more than 2 ms from the truth from 25 s on (the last at \(lastOutside) s)")
            XCTAssertEqual(try XCTUnwrap(estimator.driftPartsPerMillion, name), slowMic ? -200 : 200, accuracy: 25, name)
        }
    }
}
