/// How periodic the last 40 ms of a band-limited signal are: the highest normalized autocorrelation over the
/// pitch lags of 60–400 Hz, 0...1. Voiced speech is periodic at its pitch; pink, white, fan and street noise
/// mostly are not (and a periodic noise, such as a fan's hum, is learned as the noise's own level by the caller).
///
/// The samples are low-passed (two Butterworth sections at `cutoffHz`: voiced speech's strong harmonics lie below
/// about 1 kHz, a clatter's or a hiss's ringing above it) and averaged in groups of `sampleRate / 8000` (about
/// 8 kHz) before the correlation, which then costs about 320 × 115 multiply-adds per 10 ms frame, taken eight at
/// a time (`SIMD8`).
///
/// Lifecycle: create (allocates) → ``add(_:)`` per sample and ``periodicity()`` per frame (real-time safe: no
/// allocation, locks or system calls) → ``reset()``. One thread at a time.
final class VoicingMeter {
    /// Input samples averaged into one analysed sample.
    let step: Int
    private let minimumLag: Int
    private let maximumLag: Int
    /// The last 40 ms of averaged samples, a ring written at `next`.
    private let ring: UnsafeMutableBufferPointer<Float>
    /// The ring in time order, and its running energy (`energy[i]` = sum of the first `i` squares).
    private let ordered: UnsafeMutableBufferPointer<Float>
    private let energy: UnsafeMutableBufferPointer<Float>
    /// The last ``periodicity()``'s squared normalized correlation per lag (index `lag - minimumLag`; 0 where
    /// negative), for ``fundamentalLag()``; meaningful while ``bestLag`` > 0 (a silent frame leaves the earlier
    /// scores).
    private let scores: UnsafeMutableBufferPointer<Float>
    private var next = 0
    /// The lag (in analysed samples, about 1/8000 s each) of the last ``periodicity()``'s highest correlation;
    /// 0 when it found none. Often a multiple of the period (the correlation of a voice whose cycles alternate in
    /// shape peaks higher at two or three periods than at one); ``fundamentalLag()`` is the period.
    private(set) var bestLag = 0
    private var partial: Float = 0
    private var partialCount = 0
    private var lowPass: (Biquad, Biquad)

    /// Creates a meter for `sampleRate` Hz (8000...48000) analysing below `cutoffHz`. Allocates.
    init(sampleRate: Int, cutoffHz: Double) {
        let cutoff = min(cutoffHz, 0.45 * Double(sampleRate))
        lowPass = (Biquad.lowPass(cutoff: cutoff, sampleRate: Double(sampleRate)),
                   Biquad.lowPass(cutoff: cutoff, sampleRate: Double(sampleRate)))
        step = max(1, sampleRate / 8000)
        let rate = sampleRate / step
        minimumLag = rate / 400
        maximumLag = rate / 60
        let window = rate * 40 / 1000
        ring = .allocate(capacity: window)
        ring.initialize(repeating: 0)
        ordered = .allocate(capacity: window)
        ordered.initialize(repeating: 0)
        energy = .allocate(capacity: window + 1)
        energy.initialize(repeating: 0)
        scores = .allocate(capacity: maximumLag - minimumLag + 1)
        scores.initialize(repeating: 0)
    }

    deinit {
        ring.deallocate()
        ordered.deallocate()
        energy.deallocate()
        scores.deallocate()
    }

    /// Takes the next input sample. Real-time safe.
    @inline(__always)
    func add(_ sample: Double) {
        partial += Float(lowPass.1.filter(lowPass.0.filter(sample)))
        partialCount += 1
        guard partialCount == step else { return }
        ring[next] = partial
        next = next + 1 == ring.count ? 0 : next + 1
        partial = 0
        partialCount = 0
    }

    /// The highest normalized autocorrelation of the last 40 ms over the pitch lags, 0...1 (0 for silence).
    /// Real-time safe.
    func periodicity() -> Float {
        let n = ring.count
        let older = n - next
        (ordered.baseAddress!).update(from: ring.baseAddress! + next, count: older)
        (ordered.baseAddress! + older).update(from: ring.baseAddress!, count: next)
        energy[0] = 0
        for i in 0..<n { energy[i + 1] = energy[i] + ordered[i] * ordered[i] }
        bestLag = 0
        guard energy[n] > 1e-6 else { return 0 }
        var best: Float = 0
        let base = UnsafeRawPointer(ordered.baseAddress!)
        let stride = MemoryLayout<Float>.stride
        for lag in minimumLag...maximumLag {
            // sum over i of ordered[lag + i] * ordered[i], eight products at a time
            let count = n - lag
            var lanes = SIMD8<Float>.zero
            var i = 0
            while i + 8 <= count {
                lanes += base.loadUnaligned(fromByteOffset: (lag + i) * stride, as: SIMD8<Float>.self)
                    * base.loadUnaligned(fromByteOffset: i * stride, as: SIMD8<Float>.self)
                i += 8
            }
            var sum = lanes.sum()
            while i < count {
                sum += ordered[lag + i] * ordered[i]
                i += 1
            }
            scores[lag - minimumLag] = 0
            guard sum > 0 else { continue }
            let power = (energy[n] - energy[lag]) * energy[n - lag]
            guard power > 0 else { continue }
            scores[lag - minimumLag] = sum * sum / power
            if sum * sum / power > best {
                best = sum * sum / power
                bestLag = lag
            }
        }
        return best.squareRoot()
    }

    /// The last ``periodicity()``'s period: the shortest lag whose correlation is a local peak (higher than or
    /// equal to both neighbours; the shortest lag has one, so it never counts) within `tolerance` (0..<1, a
    /// fraction of the correlation) of the highest, so a period, not a multiple of it; ``bestLag`` when no shorter
    /// peak comes that close; 0 when it found none. Real-time safe.
    func fundamentalLag(tolerance: Float = 0.15) -> Int {
        guard bestLag > minimumLag else { return bestLag }
        let best = scores[bestLag - minimumLag]
        let floor = best * (1 - tolerance) * (1 - tolerance)
        for index in 1..<(bestLag - minimumLag) where scores[index] >= floor
            && scores[index] >= scores[index - 1] && scores[index] >= scores[index + 1] {
            return index + minimumLag
        }
        return bestLag
    }

    /// Forgets the signal. Real-time safe.
    func reset() {
        lowPass.0.clear()
        lowPass.1.clear()
        ring.update(repeating: 0)
        next = 0
        bestLag = 0
        scores.update(repeating: 0)
        partial = 0
        partialCount = 0
    }
}
