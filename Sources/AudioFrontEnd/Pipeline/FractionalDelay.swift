#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the reference delayed by a fractional number of samples: a 16-tap windowed-sinc (Blackman) interpolator,
/// so the alignment can follow clock drift smoothly (a fraction of a sample per frame) instead of jumping, which
/// would make the canceller re-adapt. The fraction is constant over a frame (at 100 ppm it changes by 0.016
/// samples per 10 ms frame). Real-time safe after creation; processing thread.
final class FractionalDelay {
    static let halfTaps = 8
    private let window: UnsafeMutableBufferPointer<Int16>
    private let taps: UnsafeMutableBufferPointer<Float>

    init(frameLength: Int) {
        window = .zeroed(capacity: frameLength + 2 * Self.halfTaps)
        taps = .zeroed(capacity: 2 * Self.halfTaps)
    }

    deinit {
        window.deallocate()
        taps.deallocate()
    }

    /// Writes `destination[i]` = reference at (`position` + i − `delay`), interpolated. `delay` must be at least
    /// ``halfTaps`` (the interpolator looks that far ahead). Reads with ``ReferenceHistory/peek(from:into:)``:
    /// the caller does the accounting read of the integer-delayed frame.
    func read(_ references: ReferenceHistory, position: Int, delay: Double, into destination: UnsafeMutableBufferPointer<Int16>) {
        let whole = Int(delay.rounded(.down))
        let fraction = Float(delay - Double(whole))
        let h = Self.halfTaps
        // y[i] = Σ_j x[p − whole + i − j] · w(j − fraction), j = −h+1 ... h; x from p − whole − h.
        let count = destination.count
        references.peek(from: position - whole - h, into: UnsafeMutableBufferPointer(rebasing: window[0..<(count + 2 * h)]))
        var sum: Float = 0
        for k in 0..<(2 * h) {
            let j = Float(k - h + 1)
            let t = j - fraction // distance from the ideal point, −h … h
            let sinc = abs(t) < 1e-6 ? 1 : sinf(.pi * t) / (.pi * t)
            let phase = (t + Float(h)) / Float(2 * h) // 0 … 1 over the window
            let blackman = 0.42 - 0.5 * cosf(2 * .pi * phase) + 0.08 * cosf(4 * .pi * phase)
            taps[k] = sinc * blackman
            sum += taps[k]
        }
        for k in 0..<(2 * h) { taps[k] /= sum } // unit gain at DC
        for i in 0..<count {
            var sum: Float = 0
            // x index for tap k: (i − (k − h + 1)) + h in the window.
            for k in 0..<(2 * h) { sum += taps[k] * Float(window[i + 2 * h - 1 - k]) }
            destination[i] = SampleConversion.clippedInt16(sum)
        }
    }
}
