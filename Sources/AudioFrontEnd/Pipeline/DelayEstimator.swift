#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks the bulk delay between the reference (what the device plays) and its echo in the microphone.
///
/// Method: generalized cross-correlation with phase transform (GCC-PHAT) at 4 kHz. Both signals are decimated
/// to about 4 kHz (block means); every 0.128 s (0.256 s once settled) the newest 0.512 s (``windowLength`` samples) of mic is
/// cross-correlated in the frequency domain with the reference over the whole lag range, the cross-spectrum is
/// accumulated with exponential forgetting (about 4 s), and its phase alone (each bin divided by its magnitude)
/// is transformed back: the result peaks sharply at the delays of the direct path and of the early reflections,
/// whatever the far end's spectrum. The estimate is the earliest peak at least ``reflectionRatio`` of the
/// highest within 30 ms before it (the direct path; PHAT gives a strong reflection as much weight), refined by
/// parabolic interpolation, accepted when it stands ``confidenceThreshold`` times above the mean magnitude.
///
/// Why not the onset correlation used before: onsets of voiced speech repeat at the pitch period and those of
/// music at its beat, so their correlation has a comb of peaks about 10 ms apart and locked on the wrong tooth
/// (10–70 ms off in 9 of the 25 echo scenes of the scenario matrix's tuning half); the phase transform whitens
/// the harmonics away. The estimate reported is steadied by a ``DelayTracker``.
///
/// Cost: two complex FFTs of ``fftLength`` (8192 at the default 1000 ms range) every 0.128 s for the first
/// estimate and 5 s after it, then every 0.256 s: a peak of about 3 million instructions in one frame of 26.
/// Real-time safe after creation; one thread (the pipeline's processing thread).
final class DelayEstimator {
    let sampleRate: Int
    /// Input samples per analysis sample.
    let decimation: Int
    /// Lags searched, in analysis samples (0 through the maximum delay).
    let lagCount: Int
    /// Analysis samples of mic cross-correlated per update (0.512 s).
    let windowLength = 2048
    /// Analysis samples between updates (0.128 s). Chosen on the echo vectors and the tuning half: with 0.256 or
    /// 0.512 s the first estimate came 1.2–1.5 s after the far end started and the cancellers, adapted meanwhile
    /// to the unshifted reference, lost up to 10 dB after far-end pauses (`FrontEndEchoTests`, 120 ms vector);
    /// with 0.128 s it comes at 0.7 s.
    let hopLength = 512
    /// Analysis samples between updates once the estimate has held for ``settledUpdates`` updates (0.256 s):
    /// half the cost in steady state.
    let settledHopLength = 1024
    let settledUpdates = 40
    private var updatesSinceEstimate = 0
    let fftLength: Int
    /// A peak this close to the highest, up to 30 ms before it, is taken as the direct path.
    let reflectionRatio: Float = 0.6
    private let forgetting: Float
    private let settledForgetting: Float
    private let gateEnergy: Float
    private let fft: ComplexFFT
    private let real: UnsafeMutableBufferPointer<Float>
    private let imaginary: UnsafeMutableBufferPointer<Float>
    private let crossReal: UnsafeMutableBufferPointer<Float>
    private let crossImaginary: UnsafeMutableBufferPointer<Float>
    /// The newest `windowLength` analysis samples of mic, a ring written at `micNext`.
    private let micRing: UnsafeMutableBufferPointer<Float>
    private var micNext = 0
    /// The newest `windowLength + lagCount` analysis samples of reference, a ring written at `referenceNext`.
    private let referenceRing: UnsafeMutableBufferPointer<Float>
    private var referenceNext = 0
    private var sinceUpdate = 0
    private var micSum: Float = 0
    private var referenceSum: Float = 0
    private var phase = 0
    private var activeFrames = 0
    private var windowFrames = 0
    /// Before the first estimate: the previous window's raw estimate, which the next must agree with.
    private var candidate: Double?
    /// The latest confident raw estimate in samples, or nil before one.
    private(set) var latestSamples: Double?
    /// Raw estimates steadied for the alignment (see ``DelayTracker``).
    private let tracker: DelayTracker
    private var drift: DriftFit
    private var samplesProcessed = 0
    /// The current estimate in samples (the steadied one), or nil before a confident one.
    var delaySamples: Double? { tracker.median }
    /// Peak over mean magnitude of the phase-transformed correlation at the last update (higher is surer).
    private(set) var confidence: Float = 0
    /// Minimum peak-to-mean ratio for an estimate to be accepted. Chosen on the scenario matrix's tuning half:
    /// mic and reference of different scenes (no echo) reach 7.1, echoes 9.5 and more.
    var confidenceThreshold: Float = 9

    /// - Parameters:
    ///   - sampleRate: rate of both signals, Hz.
    ///   - maximumDelayMilliseconds: largest delay searched.
    ///   - gateDecibels: a window whose reference frames are quieter than this (dBFS) in more than 4 of 5 is
    ///     not counted (the estimate holds while the far end is quiet).
    init(sampleRate: Int, maximumDelayMilliseconds: Int = 1000, gateDecibels: Float = -55) {
        self.sampleRate = sampleRate
        decimation = max(1, sampleRate / 4000)
        let analysisRate = sampleRate / decimation
        lagCount = max(2, maximumDelayMilliseconds * analysisRate / 1000 + 1)
        var n = 2
        while n < windowLength + lagCount { n *= 2 }
        fftLength = n
        forgetting = expf(-Float(hopLength) / (4 * Float(analysisRate)))
        settledForgetting = expf(-Float(settledHopLength) / (4 * Float(analysisRate)))
        gateEnergy = powf(10, gateDecibels / 10) * 32768 * 32768
        tracker = DelayTracker(sampleRate: sampleRate)
        drift = DriftFit()
        fft = ComplexFFT(length: n)
        real = .zeroed(capacity: n)
        imaginary = .zeroed(capacity: n)
        crossReal = .zeroed(capacity: n / 2 + 1)
        crossImaginary = .zeroed(capacity: n / 2 + 1)
        micRing = .zeroed(capacity: windowLength)
        referenceRing = .zeroed(capacity: windowLength + lagCount)
    }

    deinit {
        for buffer in [real, imaginary, crossReal, crossImaginary, micRing, referenceRing] { buffer.deallocate() }
    }

    /// Clock drift between reference and mic in parts per million (positive: the echo lags more and more, the
    /// mic clock is fast), from the slope of the raw estimates; nil until 30 s of far-end activity spanning a
    /// minute. Processing thread.
    var driftPartsPerMillion: Double? { drift.slope.map { $0 * 1e6 } }

    /// Delay in milliseconds, or nil before a confident estimate.
    var delayMilliseconds: Double? { delaySamples.map { $0 * 1000 / Double(sampleRate) } }

    /// Feeds one frame of microphone and of reference at the same sample positions (the reference not shifted).
    /// Both buffers have the same length (10 ms frames). Real-time safe.
    func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        let count = min(mic.count, reference.count)
        guard count > 0 else { return }
        var energy: Float = 0
        let scale = 1 / Float(decimation)
        let ringLength = referenceRing.count
        for i in 0..<count {
            let r = Float(reference[i])
            energy += r * r
            micSum += Float(mic[i])
            referenceSum += r
            phase += 1
            guard phase == decimation else { continue }
            phase = 0
            referenceRing[referenceNext] = referenceSum * scale
            referenceNext = referenceNext + 1 == ringLength ? 0 : referenceNext + 1
            micRing[micNext] = micSum * scale
            micNext = micNext + 1 == windowLength ? 0 : micNext + 1
            micSum = 0
            referenceSum = 0
            sinceUpdate += 1
            if sinceUpdate >= (updatesSinceEstimate >= settledUpdates ? settledHopLength : hopLength) {
                sinceUpdate = 0
                updateEstimate()
            }
        }
        samplesProcessed += count
        windowFrames += 1
        if energy / Float(count) > gateEnergy { activeFrames += 1 }
    }

    /// Forgets everything. Real-time safe.
    func reset() {
        for buffer in [crossReal, crossImaginary, micRing, referenceRing] { _ = buffer.update(repeating: 0) }
        referenceNext = 0
        micNext = 0
        sinceUpdate = 0
        micSum = 0
        referenceSum = 0
        phase = 0
        activeFrames = 0
        windowFrames = 0
        candidate = nil
        updatesSinceEstimate = 0
        latestSamples = nil
        tracker.reset()
        drift = DriftFit()
        confidence = 0
    }

    private func updateEstimate() {
        // Hold while the far end is quiet: a window counts when at least a fifth of its frames play.
        let active = activeFrames * 5 >= windowFrames && windowFrames > 0
        activeFrames = 0
        windowFrames = 0
        guard active else { return }
        accumulateCrossSpectrum()
        let c = correlation()
        pickPeak(c)
        if tracker.median != nil { updatesSinceEstimate += 1 }
    }

    /// cross = λ·cross + MIC·conj(REF) for bins 0…N/2, where the mic window sits at offset `lagCount` of an
    /// N-sample frame and the reference's newest `windowLength + lagCount` samples at offset 0, so circular
    /// lag j of the product is the linear lag j for 0 ≤ j < lagCount. Both transforms come from one complex FFT
    /// (mic real, reference imaginary).
    private func accumulateCrossSpectrum() {
        let n = fftLength
        let re = real.baseAddress!, im = imaginary.baseAddress!
        _ = real.update(repeating: 0)
        // The rings oldest first: from the write index to the end, then from the start.
        let micTail = windowLength - micNext
        (re + lagCount).update(from: micRing.baseAddress! + micNext, count: micTail)
        (re + lagCount + micTail).update(from: micRing.baseAddress!, count: micNext)
        let ringLength = referenceRing.count, referenceTail = ringLength - referenceNext
        im.update(from: referenceRing.baseAddress! + referenceNext, count: referenceTail)
        (im + referenceTail).update(from: referenceRing.baseAddress!, count: referenceNext)
        (im + ringLength).update(repeating: 0, count: n - ringLength)
        fft.forward(real: re, imaginary: im)
        let lambda = updatesSinceEstimate >= settledUpdates ? settledForgetting : forgetting
        for k in 0...(n / 2) {
            let m = (n - k) & (n - 1)
            let zr = re[k], zi = im[k], yr = re[m], yi = im[m]
            let micR = (zr + yr) * 0.5, micI = (zi - yi) * 0.5
            let refR = (zi + yi) * 0.5, refI = (yr - zr) * 0.5
            crossReal[k] = crossReal[k] * lambda + micR * refR + micI * refI
            crossImaginary[k] = crossImaginary[k] * lambda + micI * refR - micR * refI
        }
    }

    /// The phase-transformed correlation for lags 0..<lagCount, left in `real` (unscaled).
    private func correlation() -> UnsafeMutablePointer<Float> {
        let n = fftLength
        let re = real.baseAddress!, im = imaginary.baseAddress!
        var largest: Float = 0
        for k in 0...(n / 2) {
            largest = max(largest, crossReal[k] * crossReal[k] + crossImaginary[k] * crossImaginary[k])
        }
        let floor = largest * 1e-12 + Float.leastNormalMagnitude
        // The inverse transform as a forward one of the conjugate; only the real part is read.
        for k in 0...(n / 2) {
            let gr = crossReal[k], gi = crossImaginary[k]
            let w = 1 / sqrtf(gr * gr + gi * gi + floor)
            re[k] = gr * w
            im[k] = -gi * w
            if k > 0 && k < n / 2 {
                re[n - k] = gr * w
                im[n - k] = gi * w
            }
        }
        fft.forward(real: re, imaginary: im)
        return re
    }

    private func pickPeak(_ c: UnsafeMutablePointer<Float>) {
        var best = 0
        var sum: Float = 0
        for l in 0..<lagCount {
            sum += abs(c[l])
            if c[l] > c[best] { best = l }
        }
        let mean = sum / Float(lagCount)
        guard mean > 0 else { return }
        confidence = c[best] / mean
        guard confidence >= confidenceThreshold else { return }
        // The direct path: the earliest local peak within 30 ms before the highest that is nearly as high.
        let back = 30 * sampleRate / decimation / 1000
        for l in stride(from: max(1, best - back), to: best, by: 1) where c[l] >= reflectionRatio * c[best] && c[l] >= c[l - 1] && c[l] >= c[l + 1] {
            best = l
            break
        }
        var offset: Double = 0
        if best > 0, best < lagCount - 1 {
            let a = Double(c[best - 1]), b = Double(c[best]), d = Double(c[best + 1])
            let denominator = a - 2 * b + d
            if denominator < 0 { offset = max(-0.5, min(0.5, 0.5 * (a - d) / denominator)) }
        }
        let raw = (Double(best) + offset) * Double(decimation)
        latestSamples = raw
        let agreement = 0.002 * Double(sampleRate)
        guard let median = tracker.median else {
            // The first windows carry little echo and a peak can stand out by chance (2 ms on the 120 ms echo
            // vector), which would set the canceller on a wrong alignment for a second: the first estimate
            // needs two consecutive windows that agree.
            if let candidate, abs(candidate - raw) <= agreement { tracker.add(raw) }
            candidate = raw
            return
        }
        tracker.add(raw)
        // The drift line goes through estimates that agree with the steadied one (a reflection taken for a window,
        // or a jump, would tilt it).
        if abs(raw - median) <= agreement {
            drift.add(seconds: Double(samplesProcessed) / Double(sampleRate), delay: raw / Double(sampleRate))
        }
    }
}

