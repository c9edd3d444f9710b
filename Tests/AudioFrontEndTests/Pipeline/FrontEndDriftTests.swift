import AudioFrontEnd
import Foundation
import XCTest

/// Clock drift between the device's playback (reference) clock and its mic clock: the echo moves against the
/// reference by 100 µs per second, 30 ms over 5 minutes, and the front end must follow it.
final class FrontEndDriftTests: XCTestCase {
    /// The far end looped for `seconds` through the room of `echo_d120ms_16k.wav` (its IR, 120 ms bulk delay and
    /// -60 dBFS noise, the vector itself looped: the far end is silent for 0.77 s at its end, longer than delay +
    /// IR, so the loop is seamless), then resampled by 1.0001: the mic clock runs 100 ppm fast against the
    /// reference's, so mic position n hears the reference at n / 1.0001 − 120 ms and the delay grows by 0.1 ms/s.
    /// `slowMic` resamples by 1 / 1.0001 instead (−100 ppm: the delay shrinks by 0.1 ms/s). `hundreds` scales the
    /// drift (2: ±200 ppm, 10000 → 10002 Hz).
    static func driftingEcho(seconds: Int, slowMic: Bool = false, hundreds: Int = 1) throws -> (mic: [Int16], reference: [Int16]) {
        let echo = try TestVectors.float("echo_d120ms_16k.wav").samples
        let far = try TestVectors.int16("farend_16k.wav").samples
        let count = seconds * 16000
        let loops = (count + echo.count - 1) / echo.count
        let loopedEcho = Array([[Float]](repeating: echo, count: loops).joined().prefix(count))
        let reference = Array([[Int16]](repeating: far, count: loops).joined().prefix(count))
        // 10000 → 10001 Hz is exactly the 1.0001 ratio (libsamplerate, sinc).
        let fast = 10000 + hundreds
        let converter = try SampleRateConverter(inputRate: slowMic ? fast : 10000, outputRate: slowMic ? 10000 : fast)
        let mic = SampleConversion.int16(from: converter.resample(loopedEcho))
        return (mic, reference)
    }

    /// ERLE per second of echo (runs of 100 echo frames, see ``FrontEndHarness/erlePerEchoRun``) from `from` s
    /// on, with the second where each run ends.
    static func erlePerSecond(mic: [Int16], output: [Int16], from: Int) -> [(second: Int, erle: Double)] {
        FrontEndHarness.erlePerEchoRun(mic: mic, output: output, start: from * 16000, frames: 100).map { ($0.end / 16000, $0.erle) }
    }

    /// Always on: 2 minutes of +100 ppm drift (the echo moves 12 ms), ERLE ≥ 20 dB in every second of echo from 3 s on, the
    /// alignment follows, telemetry reports about +100 ppm.
    func testFollowsHundredPartsPerMillionDrift() throws {
        try checkDrift(seconds: 120)
    }

    /// The issue's target: 5 minutes (the echo moves 30 ms), both signs of drift. About 5× the always-on test's
    /// time in debug builds; opt-in with AFE_LONG=1.
    func testFollowsHundredPartsPerMillionDriftForFiveMinutes() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["AFE_LONG"] != nil, "5-minute drift runs; AFE_LONG=1 runs them")
        try checkDrift(seconds: 300)
        try checkDrift(seconds: 300, slowMic: true)
    }

    private func checkDrift(seconds: Int, slowMic: Bool = false) throws {
        let ppm = slowMic ? -100.0 : 100.0
        let (mic, reference) = try Self.driftingEcho(seconds: seconds, slowMic: slowMic)
        let result = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
        let output = result.alignedAudio
        XCTAssertEqual(output.count, mic.count, "output count")
        let figures = Self.erlePerSecond(mic: mic, output: output, from: 3)
        let verbose = ProcessInfo.processInfo.environment["AFE_VERBOSE"] != nil
        if verbose { for f in figures { print(String(format: "  drift %3d s: ERLE %.1f dB", f.second, f.erle)) } }
        let worst = try XCTUnwrap(figures.min { $0.erle < $1.erle })
        var minutes: [String] = []
        for start in stride(from: 0, to: seconds, by: 60) {
            let inMinute = figures.filter { $0.second >= start && $0.second < start + 60 }.map(\.erle)
            if let low = inMinute.min() { minutes.append(String(format: "%d–%d s: worst %.1f dB", start, start + 60, low)) }
        }
        let telemetry = result.telemetry
        if verbose {
            for t in telemetry where t.milliseconds % 2000 < 250 {
                print("  telemetry \(t.milliseconds) ms: delay \(t.delayMilliseconds ?? .nan) alignment \(t.alignmentMilliseconds) drift \(t.driftPartsPerMillion ?? .nan) erle \(t.erleDecibels ?? .nan)")
            }
        }
        let first = telemetry.first { $0.delayMilliseconds != nil }
        let last = telemetry.last
        let drift = last?.driftPartsPerMillion
        print("drift \(Int(ppm)) ppm over \(seconds) s: worst ERLE per second of echo \(String(format: "%.1f", worst.erle)) dB at \(worst.second) s; "
              + minutes.joined(separator: ", ")
              + "; delay \(first?.delayMilliseconds ?? .nan) → \(last?.delayMilliseconds ?? .nan) ms, alignment → \(last?.alignmentMilliseconds ?? .nan) ms; "
              + "drift reported \(drift ?? .nan) ppm")
        XCTAssertGreaterThanOrEqual(worst.erle, 20, "\(ppm) ppm: worst ERLE per second of echo from 3 s on (at \(worst.second) s)")
        // The echo moved by seconds × ppm / 1000 ms; the estimate followed (within 6 ms, as DelayEstimatorTests ask:
        // the onset correlation sometimes favours an early reflection a few ms after the direct path).
        let expectedEnd = 120 + Double(seconds) * ppm / 1000
        XCTAssertEqual(try XCTUnwrap(last?.delayMilliseconds), expectedEnd, accuracy: 6, "delay estimate at the end")
        XCTAssertEqual(try XCTUnwrap(drift, "telemetry reports no drift"), ppm, accuracy: 25, "drift (ppm)")
    }
}
