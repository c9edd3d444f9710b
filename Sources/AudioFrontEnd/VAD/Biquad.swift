#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A second-order IIR section (direct form I) with the RBJ cookbook's Butterworth (Q = 1/√2) designs.
///
/// Coefficients are computed at creation; ``filter(_:)`` is real-time safe. A value type: one thread at a time.
struct Biquad {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    private init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0; self.b1 = b1 / a0; self.b2 = b2 / a0
        self.a1 = a1 / a0; self.a2 = a2 / a0
    }

    /// A Butterworth high-pass at `cutoff` Hz.
    static func highPass(cutoff: Double, sampleRate: Double) -> Biquad {
        let w = 2 * Double.pi * cutoff / sampleRate, c = cos(w), alpha = sin(w) / 2.squareRoot()
        return Biquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// A Butterworth low-pass at `cutoff` Hz.
    static func lowPass(cutoff: Double, sampleRate: Double) -> Biquad {
        let w = 2 * Double.pi * cutoff / sampleRate, c = cos(w), alpha = sin(w) / 2.squareRoot()
        return Biquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + alpha, a1: -2 * c, a2: 1 - alpha)
    }

    /// Filters one sample. Real-time safe.
    @inline(__always)
    mutating func filter(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x
        y2 = y1; y1 = y
        return y
    }

    /// Clears the filter's memory.
    mutating func clear() { x1 = 0; x2 = 0; y1 = 0; y2 = 0 }
}
