import AudioFrontEnd
import Foundation
import XCTest

/// Runs echo cancellers and noise suppressors over whole signals, 10 ms at a time, and measures their output
/// over labelled spans (with the stage's latency compensated) for EchoCancellerTests and NoiseSuppressorTests.
enum StageRunner {
    nonisolated(unsafe) private static var loaded: [String: [Int16]] = [:] // guarded by loadLock
    private static let loadLock = NSLock()

    /// A test vector's int16 samples, loaded (and hash-checked) once per test run: loading costs about half a
    /// second per file in debug builds, and several tests share each file.
    static func samples(_ name: String) throws -> [Int16] {
        loadLock.lock()
        defer { loadLock.unlock() }
        if let cached = loaded[name] { return cached }
        let samples = try TestVectors.int16(name).samples
        loaded[name] = samples
        return samples
    }

    /// `mic` through `canceller` with `reference`, frame by frame; the output has the length of the whole frames
    /// in `mic`. `afterFrame` sees each frame's index (for metrics polling). Fails the test on a non-ok status.
    static func run(_ canceller: EchoCanceller, mic: [Int16], reference: [Int16],
                    afterFrame: ((Int) -> Void)? = nil, file: StaticString = #filePath, line: UInt = #line) -> [Int16] {
        let n = canceller.frameLength
        let frames = min(mic.count, reference.count) / n
        var output = [Int16](repeating: 0, count: frames * n)
        var failures = 0
        mic.withUnsafeBufferPointer { m in
            reference.withUnsafeBufferPointer { r in
                output.withUnsafeMutableBufferPointer { o in
                    for f in 0..<frames {
                        let range = f * n..<(f + 1) * n
                        let status = canceller.process(capture: UnsafeBufferPointer(rebasing: m[range]),
                                                       reference: UnsafeBufferPointer(rebasing: r[range]),
                                                       output: UnsafeMutableBufferPointer(rebasing: o[range]))
                        if !status.isOK { failures += 1 }
                        afterFrame?(f)
                    }
                }
            }
        }
        XCTAssertEqual(failures, 0, "\(type(of: canceller)): frames with a non-ok status", file: file, line: line)
        return output
    }

    /// `signal` through `suppressor` in place, frame by frame (whole frames only).
    static func run(_ suppressor: NoiseSuppressor, _ signal: [Int16],
                    file: StaticString = #filePath, line: UInt = #line) -> [Int16] {
        let n = suppressor.frameLength
        var output = Array(signal.prefix(signal.count / n * n))
        var failures = 0
        output.withUnsafeMutableBufferPointer { o in
            for f in 0..<(o.count / n) where !suppressor.process(UnsafeMutableBufferPointer(rebasing: o[f * n..<(f + 1) * n])).isOK {
                failures += 1
            }
        }
        XCTAssertEqual(failures, 0, "\(type(of: suppressor)): frames with a non-ok status", file: file, line: line)
        return output
    }

    /// A measurement in dB for a message, one decimal.
    static func dB(_ value: Double) -> String {
        value.isFinite ? String(format: "%.1f", value) : "\(value)"
    }

    /// `x` delayed by `samples` (zeros in front), same length.
    static func delayed(_ x: [Int16], by samples: Int) -> [Int16] {
        guard samples > 0 else { return x }
        return [Int16](repeating: 0, count: samples) + x.prefix(max(x.count - samples, 0))
    }

    /// Sample ranges of `intervals` (seconds) at `rate`, shifted by `shift` seconds, starting no earlier than
    /// `from` seconds and clipped to `count` samples.
    static func ranges(_ intervals: [(start: Double, end: Double)], rate: Int, shift: Double = 0, from: Double = 0,
                       count: Int) -> [Range<Int>] {
        intervals.compactMap { span in
            let start = Int((max(span.start + shift, from) * Double(rate)).rounded())
            let end = min(Int(((span.end + shift) * Double(rate)).rounded()), count)
            return start < end ? start..<end : nil
        }
    }

    /// The complement of `ranges` within 0..<count, each shrunk by `margin` samples at both ends.
    static func gaps(between ranges: [Range<Int>], count: Int, margin: Int) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) + [count..<count] {
            let a = start + margin, b = r.lowerBound - margin
            if a < b { result.append(a..<b) }
            start = r.upperBound
        }
        return result
    }

    /// Mean power of `x[i + lag]` over the union of `ranges` (indices outside `x` count as silence).
    static func power(_ x: [Int16], _ ranges: [Range<Int>], lag: Int = 0) -> Double {
        var sum = 0.0, count = 0
        for r in ranges {
            for i in r {
                let j = i + lag
                let v = j >= 0 && j < x.count ? Double(x[j]) : 0
                sum += v * v
            }
            count += r.count
        }
        return count == 0 ? 0 : sum / Double(count)
    }

    /// Signal-to-distortion ratio in dB of `test[i + lag]` against `reference[i]` over the union of `ranges`.
    static func sdr(reference: [Int16], test: [Int16], ranges: [Range<Int>], lag: Int) -> Double {
        var signal = 0.0, error = 0.0
        for r in ranges {
            for i in r {
                let s = Double(reference[i])
                let j = i + lag
                let t = j >= 0 && j < test.count ? Double(test[j]) : 0
                signal += s * s
                error += (t - s) * (t - s)
            }
        }
        return SignalMetrics.decibels(signal / max(error, 1e-10))
    }

    /// The lag in 0...maxLag samples at which `test[i + lag]` correlates best with `reference[i]` over `ranges`:
    /// the stage's latency.
    static func latency(reference: [Int16], test: [Int16], ranges: [Range<Int>], maxLag: Int) -> Int {
        var best = 0, bestValue = -Double.infinity
        for lag in 0...maxLag {
            var dot = 0.0, energy = 0.0
            for r in ranges {
                for i in r where i + lag < test.count {
                    let t = Double(test[i + lag])
                    dot += Double(reference[i]) * t
                    energy += t * t
                }
            }
            let value = dot / max(energy.squareRoot(), 1e-10)
            if value > bestValue { bestValue = value; best = lag }
        }
        return best
    }
}
