#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-place iterative radix-2 complex FFT of one power-of-two length, on split real and imaginary arrays.
/// Tables (twiddles, bit reversal) are made at creation; ``forward(real:imaginary:)`` allocates nothing.
/// Real-time safe after creation; not shared between threads.
final class ComplexFFT {
    let length: Int
    private let cosines: UnsafeMutableBufferPointer<Float>
    private let sines: UnsafeMutableBufferPointer<Float>
    private let reversed: UnsafeMutableBufferPointer<Int32>

    /// - Parameter length: a power of two ≥ 2.
    init(length: Int) {
        precondition(length >= 2 && length & (length - 1) == 0, "FFT length must be a power of two")
        self.length = length
        cosines = .allocate(capacity: length / 2)
        sines = .allocate(capacity: length / 2)
        for k in 0..<(length / 2) {
            let angle = -2 * Double.pi * Double(k) / Double(length)
            cosines[k] = Float(cos(angle))
            sines[k] = Float(sin(angle))
        }
        reversed = .allocate(capacity: length)
        var bits = 0
        while 1 << bits < length { bits += 1 }
        for i in 0..<length {
            var r = 0, v = i
            for _ in 0..<bits { r = (r << 1) | (v & 1); v >>= 1 }
            reversed[i] = Int32(r)
        }
    }

    deinit {
        cosines.deallocate()
        sines.deallocate()
        reversed.deallocate()
    }

    /// X[k] = Σ x[n]·e^(−2πi·kn/N), in place. Both buffers hold `length` values.
    func forward(real re: UnsafeMutablePointer<Float>, imaginary im: UnsafeMutablePointer<Float>) {
        let n = length
        for i in 0..<n {
            let j = Int(reversed[i])
            if j > i {
                swap(&re[i], &re[j])
                swap(&im[i], &im[j])
            }
        }
        var half = 1
        while half < n {
            let step = n / (2 * half)
            // Twiddle outer, butterflies inner: each twiddle is loaded once per stage. Wrapping arithmetic: the
            // indices stay below `length`.
            for k in 0..<half {
                let wr = cosines[k &* step], wi = sines[k &* step]
                var a = k
                while a < n {
                    let b = a &+ half
                    let tr = re[b] * wr - im[b] * wi
                    let ti = re[b] * wi + im[b] * wr
                    re[b] = re[a] - tr
                    im[b] = im[a] - ti
                    re[a] += tr
                    im[a] += ti
                    a = a &+ 2 &* half
                }
            }
            half *= 2
        }
    }
}
