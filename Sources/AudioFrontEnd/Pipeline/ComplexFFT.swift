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

    /// cos(−2πk/``length``) and sin(−2πk/``length``), 0 ≤ k < ``length``/2: the forward transform's twiddles.
    @inline(__always) func cosine(_ k: Int) -> Float { cosines[k] }
    @inline(__always) func sine(_ k: Int) -> Float { sines[k] }

    deinit {
        cosines.deallocate()
        sines.deallocate()
        reversed.deallocate()
    }

    /// X[k] = Σ x[n]·e^(−2πi·kn/N), in place, for N = `count`: ``length`` (the default) or ``length`` divided
    /// by a power of two (the tables serve every such length: the twiddles at a stride, the bit reversal shifted).
    /// Both buffers hold `count` values.
    func forward(real re: UnsafeMutablePointer<Float>, imaginary im: UnsafeMutablePointer<Float>, count: Int? = nil) {
        let n = count ?? length
        precondition(n >= 2 && n <= length && length % n == 0 && n & (n - 1) == 0, "FFT length must divide the table's")
        var shift = 0
        while n << shift < length { shift += 1 }
        let stride = length / n
        for i in 0..<n {
            let j = Int(reversed[i]) >> shift
            if j > i {
                swap(&re[i], &re[j])
                swap(&im[i], &im[j])
            }
        }
        var half = 1
        // The first two stages one butterfly at a time.
        while half < min(n, 4) {
            let step = n / (2 * half) * stride
            for k in 0..<half {
                let wr = cosines[k &* step], wi = sines[k &* step]
                var a = k
                while a < n {
                    butterfly(re, im, a, a &+ half, wr, wi)
                    a = a &+ 2 &* half
                }
            }
            half *= 2
        }
        // From half = 4 on, four neighbouring butterflies (consecutive twiddles) at once: twiddles outer, loaded
        // once per stage, butterflies inner. Wrapping arithmetic: the indices stay below `length`.
        while half < n {
            let step = n / (2 * half) * stride
            var k = 0
            while k < half {
                let t = k &* step
                let wr = SIMD4<Float>(cosines[t], cosines[t &+ step], cosines[t &+ 2 &* step], cosines[t &+ 3 &* step])
                let wi = SIMD4<Float>(sines[t], sines[t &+ step], sines[t &+ 2 &* step], sines[t &+ 3 &* step])
                var a = k
                while a < n {
                    let b = a &+ half
                    let br = load(re + b), bi = load(im + b), ar = load(re + a), ai = load(im + a)
                    let tr = br * wr - bi * wi
                    let ti = br * wi + bi * wr
                    store(ar - tr, re + b)
                    store(ai - ti, im + b)
                    store(ar + tr, re + a)
                    store(ai + ti, im + a)
                    a = a &+ 2 &* half
                }
                k &+= 4
            }
            half *= 2
        }
    }

    @inline(__always)
    private func butterfly(_ re: UnsafeMutablePointer<Float>, _ im: UnsafeMutablePointer<Float>, _ a: Int, _ b: Int,
                           _ wr: Float, _ wi: Float) {
        let tr = re[b] * wr - im[b] * wi
        let ti = re[b] * wi + im[b] * wr
        re[b] = re[a] - tr
        im[b] = im[a] - ti
        re[a] += tr
        im[a] += ti
    }

    @inline(__always)
    private func load(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    private func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}
