import Foundation

/// Delay estimation for the tests: where a signal lags a reference, by FFT cross-correlation.
enum CrossCorrelation {
    /// The lag in samples (0...maxLag) at which `signal` best matches `reference`, from the GCC-PHAT
    /// cross-correlation (each frequency weighted to unit magnitude, so the peak sits on the direct path of an
    /// echo rather than on the energy centroid of its early reflections). Uses the first `length` samples of both
    /// (`length` a power of two); the FFT is 2 × `length` so lags do not wrap.
    static func phatPeakLag(reference: [Float], signal: [Float], length: Int, maxLag: Int) -> Int {
        precondition(length & (length - 1) == 0 && maxLag < length)
        let n = 2 * length
        var xr = [Double](repeating: 0, count: n), xi = [Double](repeating: 0, count: n)
        var yr = [Double](repeating: 0, count: n), yi = [Double](repeating: 0, count: n)
        for i in 0..<min(length, reference.count) { xr[i] = Double(reference[i]) }
        for i in 0..<min(length, signal.count) { yr[i] = Double(signal[i]) }
        fft(&xr, &xi, inverse: false)
        fft(&yr, &yi, inverse: false)
        // Y · conj(X), normalised to unit magnitude.
        for k in 0..<n {
            let re = yr[k] * xr[k] + yi[k] * xi[k]
            let im = yi[k] * xr[k] - yr[k] * xi[k]
            let m = max((re * re + im * im).squareRoot(), 1e-12)
            yr[k] = re / m
            yi[k] = im / m
        }
        fft(&yr, &yi, inverse: true)
        var best = 0
        for lag in 0...maxLag where yr[lag] > yr[best] { best = lag }
        return best
    }

    /// In-place iterative radix-2 complex FFT (unnormalised; the inverse has a positive exponent).
    static func fft(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
        let n = re.count
        precondition(n == im.count && n & (n - 1) == 0)
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { m in
                var j = 0
                for i in 1..<n {
                    var bit = n >> 1
                    while j & bit != 0 { j ^= bit; bit >>= 1 }
                    j |= bit
                    if i < j { r.swapAt(i, j); m.swapAt(i, j) }
                }
                var size = 2
                while size <= n {
                    let angle = (inverse ? 2 : -2) * Double.pi / Double(size)
                    let (wr, wi) = (cos(angle), sin(angle))
                    let half = size / 2
                    var start = 0
                    while start < n {
                        var (cr, ci) = (1.0, 0.0)
                        for k in 0..<half {
                            let a = start + k, b = a + half
                            let tr = r[b] * cr - m[b] * ci, ti = r[b] * ci + m[b] * cr
                            r[b] = r[a] - tr; m[b] = m[a] - ti
                            r[a] += tr; m[a] += ti
                            (cr, ci) = (cr * wr - ci * wi, cr * wi + ci * wr)
                        }
                        start += size
                    }
                    size <<= 1
                }
            }
        }
    }
}
