import Foundation

/// Quality measures for the tests: every threshold in the suite is one of these against ground truth.
enum SignalMetrics {
    /// Mean power (mean square) of `x[range]`, on the int16 or float scale the caller uses.
    static func power<T: BinaryInteger>(_ x: [T], _ range: Range<Int>? = nil) -> Double {
        power(count: x.count, range) { Double(x[$0]) }
    }

    static func power(_ x: [Float], _ range: Range<Int>? = nil) -> Double {
        power(count: x.count, range) { Double(x[$0]) }
    }

    private static func power(count: Int, _ range: Range<Int>?, _ sample: (Int) -> Double) -> Double {
        let r = range ?? 0..<count
        guard !r.isEmpty else { return 0 }
        var sum = 0.0
        for i in r { let v = sample(i); sum += v * v }
        return sum / Double(r.count)
    }

    static func decibels(_ ratio: Double) -> Double { 10 * log10(max(ratio, 1e-20)) }

    /// Echo return loss enhancement in dB over `range`: power of the mic (echo) over power of the output.
    static func erle<T: BinaryInteger>(mic: [T], output: [T], range: Range<Int>) -> Double {
        decibels(power(mic, range) / max(power(output, range), 1e-10))
    }

    /// Signal-to-noise (distortion) ratio in dB of `test` against `reference` over `range`:
    /// power of the reference over power of (test - reference).
    static func snr<T: BinaryInteger>(reference: [T], test: [T], range: Range<Int>? = nil) -> Double {
        snr(range ?? 0..<min(reference.count, test.count)) { (Double(reference[$0]), Double(test[$0])) }
    }

    static func snr(reference: [Float], test: [Float], range: Range<Int>? = nil) -> Double {
        snr(range ?? 0..<min(reference.count, test.count)) { (Double(reference[$0]), Double(test[$0])) }
    }

    private static func snr(_ range: Range<Int>, _ pair: (Int) -> (Double, Double)) -> Double {
        var signal = 0.0, noise = 0.0
        for i in range {
            let (s, t) = pair(i)
            signal += s * s
            noise += (t - s) * (t - s)
        }
        return decibels(signal / max(noise, 1e-10))
    }

    /// Segmental SNR in dB: the mean over `segment`-sample segments whose reference is not silent of each
    /// segment's SNR clamped to -10...35 dB (the usual clamp, so silent or perfect segments do not dominate).
    static func segmentalSNR(reference: [Float], test: [Float], segment: Int) -> Double {
        let n = min(reference.count, test.count)
        var values: [Double] = []
        var start = 0
        while start + segment <= n {
            let r = start..<(start + segment)
            if power(reference, r) > 1e-6 {
                values.append(min(35, max(-10, snr(reference: reference, test: test, range: r))))
            }
            start += segment
        }
        return values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }

    /// Normalized cross-correlation (Pearson) of two equal-length stretches.
    static func correlation(_ a: [Float], _ b: [Float]) -> Double {
        let n = min(a.count, b.count)
        guard n > 1 else { return 0 }
        var ma = 0.0, mb = 0.0
        for i in 0..<n { ma += Double(a[i]); mb += Double(b[i]) }
        ma /= Double(n); mb /= Double(n)
        var sab = 0.0, saa = 0.0, sbb = 0.0
        for i in 0..<n {
            let x = Double(a[i]) - ma, y = Double(b[i]) - mb
            sab += x * y; saa += x * x; sbb += y * y
        }
        return sab / max(sqrt(saa * sbb), 1e-20)
    }

    /// Frame-level precision, recall and F1 of `decisions` (true = speech) against `labels`.
    static func f1(decisions: [Bool], labels: [Bool]) -> (precision: Double, recall: Double, f1: Double) {
        var tp = 0.0, fp = 0.0, fn = 0.0
        for (d, l) in zip(decisions, labels) {
            if d && l { tp += 1 } else if d { fp += 1 } else if l { fn += 1 }
        }
        let precision = tp / max(tp + fp, 1), recall = tp / max(tp + fn, 1)
        return (precision, recall, 2 * precision * recall / max(precision + recall, 1e-12))
    }

    /// Frame labels (10 ms frames at `sampleRate`) from speech intervals in seconds.
    static func frameLabels(intervals: [(start: Double, end: Double)], frameCount: Int) -> [Bool] {
        (0..<frameCount).map { frame in
            let t = (Double(frame) + 0.5) * 0.01
            return intervals.contains { t >= $0.start && t < $0.end }
        }
    }
}
