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
/// highest within 30 ms before it (the direct path; PHAT gives a strong reflection as much weight) or, once there is
/// an estimate, such a peak within 2 ms of it, refined by parabolic interpolation, accepted when it stands
/// ``confidenceThreshold`` times above the mean magnitude. Under a clock drift the accumulated spectrum is moved
/// with the delay at each update, once the drift is known, so it stays coherent.
///
/// Why not the onset correlation used before: onsets of voiced speech repeat at the pitch period and those of
/// music at its beat, so their correlation has a comb of peaks about 10 ms apart and locked on the wrong tooth
/// (10–70 ms off in 9 of the 25 echo scenes of the scenario matrix's tuning half); the phase transform whitens
/// the harmonics away. The estimate reported is steadied by a ``DelayTracker``.
///
/// Cost: a complex FFT of ``fftLength`` (8192 at the default 1000 ms range) and one of half that length (the
/// real correlation's inverse, see ``correlation()``) every 0.128 s for the first
/// estimate and 5 s after it, then every 0.256 s: a peak of about 3 million instructions in one frame of 26; from
/// the 17th update on one more half-length inverse for ``EchoPresence`` and, once there is an estimate, one for
/// ``challenge()``.
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
    /// The same cross-spectrum with a short memory (``challengeMemorySeconds``), for ``challenge()``.
    private let recentReal: UnsafeMutableBufferPointer<Float>
    private let recentImaginary: UnsafeMutableBufferPointer<Float>
    private let recentForgetting: Float
    private let settledRecentForgetting: Float
    /// The short-memory spectrum's last raw estimate and how many updates in a row agreed with it away from the
    /// current estimate.
    private var challenger: Double?
    private var challengeRun = 0
    /// Memory (time constant) of the short cross-spectrum, s.
    static let challengeMemorySeconds: Float = 1
    /// How far (s) the short-memory estimate must stand from the current one, and how many updates in a row
    /// (within ``challengeAgreementSeconds`` of each other), before it replaces it.
    let challengeDistanceSeconds = 0.0015
    let challengeAgreementSeconds = 0.0005
    let challengeUpdates = 4
    /// Path changes taken from the short-memory spectrum so far.
    private(set) var challengesTaken = 0
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
    /// Weighted mean age (s) of what the accumulated cross-spectrum holds at the last update, and its weight.
    private var spectrumAgeSeconds = 0.0
    private var spectrumWeight = 0.0
    private var lastUpdateSeconds = 0.0
    /// The current estimate in samples, or nil before a confident one: the steadied one (``DelayTracker``), carried
    /// forward over its age once ``DriftFit/earlySlope`` finds the delay moving. Why: a raw estimate holds about
    /// 4 s of cross-spectrum and the median stands for the middle of its 33 raw estimates, so under drift the
    /// steadied estimate trails the delay by slope × (the median's age + the cross-spectrum's): at 200 ppm
    /// 1.3-2.6 ms on the scenario matrix's tuning half (`drift_200`), more than the 2 ms asked. Each raw estimate is
    /// filed at the time its delay was the delay (now minus the spectrum's age, see ``trackSpectrumAge()``), so the
    /// age is now minus the median's middle. A slope counts when it is at least ``driftCorrectionMinimum`` and
    /// moved the fitted line by ``driftCorrectionEvidence`` over the points' span (the jitter of a still delay tilts
    /// a short fit by tens of ppm, but moves it by a few tenths of a millisecond); the correction is at most
    /// ``driftCorrectionLimitSamples``. The same slope keeps the accumulated cross-spectrum coherent
    /// (``accumulateCrossSpectrum()``).
    var delaySamples: Double? {
        guard let median = tracker.median else { return nil }
        guard let slope = believedSlope, let middle = tracker.middleSeconds else { return median }
        let age = Double(samplesProcessed) / Double(sampleRate) - middle
        let correction = slope * age * Double(sampleRate)
        return median + max(-driftCorrectionLimitSamples, min(driftCorrectionLimitSamples, correction))
    }
    /// The drift line's slope (s/s) once it is believed (see ``delaySamples``), else nil.
    private var believedSlope: Double? {
        guard let slope = drift.earlySlope, abs(slope) >= driftCorrectionMinimum, abs(slope) <= 1e-3,
              abs(slope) * min(drift.spanSeconds, drift.memorySeconds) >= driftCorrectionEvidence else { return nil }
        return slope
    }
    /// Smallest drift the estimate is corrected for (25 ppm): below it the lag is under 0.3 ms.
    let driftCorrectionMinimum = 25e-6
    /// How far (s) the fitted line must have moved over its span before its slope is believed (1 ms).
    let driftCorrectionEvidence = 0.001
    /// How far (samples, 3 ms: under the alignment's 4 ms hysteresis) the drift correction may move the steadied
    /// estimate.
    private var driftCorrectionLimitSamples: Double { 0.003 * Double(sampleRate) }
    /// Peak over mean magnitude of the phase-transformed correlation at the last update (higher is surer).
    private(set) var confidence: Float = 0
    /// Minimum peak-to-mean ratio for an estimate to be accepted. Chosen on the scenario matrix's tuning half:
    /// mic and reference of different scenes (no echo) reach 7.1, echoes 9.5 and more. That holds once the
    /// spectrum has accumulated: in its first updates chance peaks stand higher without any echo (28 at the 1st,
    /// 15 at the 5th, 11 at the 10th, under 9 from the 13th; session 28, 84 such pairs), and the first estimate's
    /// agreement of two windows does not always keep them out (a delay was reported for 40 of 56 such pairs:
    /// the 7 mics with 8 of the references).
    var confidenceThreshold: Float = 9
    /// Whether the mic holds an echo of the reference at all, from a spectrum of its own (see ``EchoPresence``).
    private let presence: EchoPresence
    /// Whether the mic holds no echo of the reference at any lag (``EchoPresence/findsNoEcho``): about 2.6 s of
    /// reference without one, or 3-4.5 s after an echo went away. Processing thread.
    var findsNoEcho: Bool { presence.findsNoEcho }

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
        recentForgetting = expf(-Float(hopLength) / (Self.challengeMemorySeconds * Float(analysisRate)))
        settledRecentForgetting = expf(-Float(settledHopLength) / (Self.challengeMemorySeconds * Float(analysisRate)))
        gateEnergy = powf(10, gateDecibels / 10) * 32768 * 32768
        tracker = DelayTracker(sampleRate: sampleRate)
        drift = DriftFit()
        fft = ComplexFFT(length: n)
        real = .zeroed(capacity: n)
        imaginary = .zeroed(capacity: n)
        crossReal = .zeroed(capacity: n / 2 + 1)
        crossImaginary = .zeroed(capacity: n / 2 + 1)
        recentReal = .zeroed(capacity: n / 2 + 1)
        recentImaginary = .zeroed(capacity: n / 2 + 1)
        presence = EchoPresence(bins: n / 2 + 1)
        micRing = .zeroed(capacity: windowLength)
        referenceRing = .zeroed(capacity: windowLength + lagCount)
    }

    deinit {
        for buffer in [real, imaginary, crossReal, crossImaginary, recentReal, recentImaginary, micRing, referenceRing] {
            buffer.deallocate()
        }
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
        for buffer in [crossReal, crossImaginary, recentReal, recentImaginary, micRing, referenceRing] {
            buffer.update(repeating: 0)
        }
        challenger = nil
        challengeRun = 0
        challengesTaken = 0
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
        spectrumAgeSeconds = 0
        spectrumWeight = 0
        lastUpdateSeconds = 0
        confidence = 0
        presence.reset()
    }

    private func updateEstimate() {
        // Hold while the far end is quiet: a window counts when at least a fifth of its frames play.
        let active = activeFrames * 5 >= windowFrames && windowFrames > 0
        activeFrames = 0
        windowFrames = 0
        guard active else { return }
        accumulateCrossSpectrum()
        trackSpectrumAge()
        let c = correlation(crossReal, crossImaginary)
        pickPeak(c)
        presence.record(confidence: presence.needsStatistic
            ? peakOverMean(correlation(presence.real, presence.imaginary)) : nil)
        if tracker.median != nil {
            updatesSinceEstimate += 1
            challenge()
        }
    }

    /// Ages the cross-spectrum's contents by the time since the last update and adds the newest window (its
    /// centre, plus the estimator's 20 ms look-back, is 0.28 s old), with the same forgetting as the spectrum.
    private func trackSpectrumAge() {
        let now = Double(samplesProcessed) / Double(sampleRate)
        let lambda = Double(updatesSinceEstimate >= settledUpdates ? settledForgetting : forgetting)
        let newest = Double(windowLength * decimation) / Double(sampleRate) / 2 + 0.02
        let old = lambda * spectrumWeight
        spectrumWeight = old + 1
        // Moved with the drift (``accumulateCrossSpectrum()``), the old contents stand for the delay of now.
        let aged = believedSlope == nil ? now - lastUpdateSeconds : 0
        spectrumAgeSeconds = (old * (spectrumAgeSeconds + aged) + newest) / spectrumWeight
        lastUpdateSeconds = now
    }

    /// How far (analysis samples) the delay moved since the last update under the believed drift, 0 without one.
    private var spectrumShift: Double {
        guard let slope = believedSlope else { return 0 }
        let elapsed = Double(samplesProcessed) / Double(sampleRate) - lastUpdateSeconds
        return slope * elapsed * Double(sampleRate / decimation)
    }

    /// cross = λ·cross + MIC·conj(REF) for bins 0…N/2, where the mic window sits at offset `lagCount` of an
    /// N-sample frame and the reference's newest `windowLength + lagCount` samples at offset 0, so circular
    /// lag j of the product is the linear lag j for 0 ≤ j < lagCount. Both transforms come from one complex FFT
    /// (mic real, reference imaginary).
    private func accumulateCrossSpectrum() {
        let n = fftLength
        let re = real.baseAddress!, im = imaginary.baseAddress!
        real.update(repeating: 0)
        // The rings oldest first: from the write index to the end, then from the start.
        let micTail = windowLength - micNext
        (re + lagCount).update(from: micRing.baseAddress! + micNext, count: micTail)
        (re + lagCount + micTail).update(from: micRing.baseAddress!, count: micNext)
        let ringLength = referenceRing.count, referenceTail = ringLength - referenceNext
        im.update(from: referenceRing.baseAddress! + referenceNext, count: referenceTail)
        (im + referenceTail).update(from: referenceRing.baseAddress!, count: referenceNext)
        (im + ringLength).update(repeating: 0, count: n - ringLength)
        // The windows' energies, for the presence spectrum's weight (every window alike).
        var micEnergy: Float = 0, referenceEnergy: Float = 0
        for i in lagCount..<(lagCount + windowLength) { micEnergy += re[i] * re[i] }
        for i in 0..<ringLength { referenceEnergy += im[i] * im[i] }
        let weight = EchoPresence.weight(micEnergy: micEnergy, referenceEnergy: referenceEnergy)
        if micEnergy == 0 { presence.clear() }
        let presenceReal = presence.real, presenceImaginary = presence.imaginary
        fft.forward(real: re, imaginary: im)
        let settled = updatesSinceEstimate >= settledUpdates
        let lambda = settled ? settledForgetting : forgetting
        let recentLambda = settled ? settledRecentForgetting : recentForgetting
        // Under a believed drift the accumulated spectrum is moved by the delay's change since the last update
        // (bin k times e^(−2πik·shift/N), a phasor stepped bin by bin), so it stays coherent.
        let shift = spectrumShift
        let stepR = cos(-2 * Double.pi * shift / Double(n)), stepI = sin(-2 * Double.pi * shift / Double(n))
        var pr = 1.0, pi = 0.0
        for k in 0...(n / 2) {
            let m = (n - k) & (n - 1)
            let zr = re[k], zi = im[k], yr = re[m], yi = im[m]
            let micR = (zr + yr) * 0.5, micI = (zi - yi) * 0.5
            let refR = (zi + yi) * 0.5, refI = (yr - zr) * 0.5
            let cr = crossReal[k], ci = crossImaginary[k]
            let rr = Float(pr) * lambda, ri = Float(pi) * lambda
            let productR = micR * refR + micI * refI, productI = micI * refR - micR * refI
            crossReal[k] = cr * rr - ci * ri + productR
            crossImaginary[k] = cr * ri + ci * rr + productI
            let sr = recentReal[k], si = recentImaginary[k]
            let qr = Float(pr) * recentLambda, qi = Float(pi) * recentLambda
            recentReal[k] = sr * qr - si * qi + productR
            recentImaginary[k] = sr * qi + si * qr + productI
            let wr = presenceReal[k], wi = presenceImaginary[k]
            presenceReal[k] = wr * qr - wi * qi + productR * weight
            presenceImaginary[k] = wr * qi + wi * qr + productI * weight
            (pr, pi) = (pr * stepR - pi * stepI, pr * stepI + pi * stepR)
        }
    }

    /// The phase-transformed correlation for lags 0..<lagCount, left in `real` (scaled by N/2; every use of it
    /// is scale-free).
    ///
    /// The correlation is real, so its inverse transform takes one complex FFT of half the length: with
    /// G[k] the whitened cross-spectrum (G[N−k] = conj G[k]), the even and odd lags form x[m] = c[2m] + i·c[2m+1],
    /// whose N/2-point spectrum is X[k] = E[k] + i·O[k], E[k] = ½(G[k] + conj G[N/2−k]) and
    /// O[k] = ½·e^(2πik/N)·(G[k] − conj G[N/2−k]); x = IDFT(X) = conj(FFT(conj X)).
    private func correlation(_ crossReal: UnsafeMutableBufferPointer<Float>,
                             _ crossImaginary: UnsafeMutableBufferPointer<Float>) -> UnsafeMutablePointer<Float> {
        let n = fftLength, half = n / 2
        let re = real.baseAddress!, im = imaginary.baseAddress!
        var largest: Float = 0
        for k in 0...half {
            largest = max(largest, crossReal[k] * crossReal[k] + crossImaginary[k] * crossImaginary[k])
        }
        let floor = largest * 1e-12 + Float.leastNormalMagnitude
        // The whitened spectrum G, bins 0...N/2, in re/im.
        for k in 0...half {
            let gr = crossReal[k], gi = crossImaginary[k]
            let w = 1 / sqrtf(gr * gr + gi * gi + floor)
            re[k] = gr * w
            im[k] = gi * w
        }
        // conj X in the upper halves of re/im (the FFT's input), from G in the lower ones.
        let xr = re + half, xi = im + half
        for k in 0..<half {
            let ar = re[k], ai = im[k], br = re[half - k], bi = -im[half - k] // G[k], conj G[N/2−k]
            let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
            let dr = 0.5 * (ar - br), di = 0.5 * (ai - bi)
            let c = fft.cosine(k), s = -fft.sine(k) // e^(2πik/N) = c + i·s
            let or = dr * c - di * s, oi = dr * s + di * c
            xr[k] = er - oi
            xi[k] = -(ei + or)
        }
        fft.forward(real: xr, imaginary: xi, count: half)
        // c[2m] = Re x[m] = xr[m], c[2m+1] = Im x[m] = −xi[m]: interleaved into re from index 0; each write lands
        // at or before the slot being read (2m + 1 ≤ N/2 + m), so nothing is overwritten before it is read.
        for m in 0..<min(half, (lagCount + 1) / 2) {
            let a = xr[m], b = -xi[m]
            re[2 * m] = a
            re[2 * m + 1] = b
        }
        return re
    }

    /// The lag (input samples) of the peak at `best`, refined by parabolic interpolation.
    private func refined(_ c: UnsafeMutablePointer<Float>, at best: Int) -> Double {
        var offset: Double = 0
        if best > 0, best < lagCount - 1 {
            let a = Double(c[best - 1]), b = Double(c[best]), d = Double(c[best + 1])
            let denominator = a - 2 * b + d
            if denominator < 0 { offset = max(-0.5, min(0.5, 0.5 * (a - d) / denominator)) }
        }
        return (Double(best) + offset) * Double(decimation)
    }

    /// The direct path in `c`: the highest peak, or the earliest local peak within 30 ms before it at least
    /// ``reflectionRatio`` as high; nil when the highest does not stand ``confidenceThreshold`` times above the mean.
    private func directPath(_ c: UnsafeMutablePointer<Float>) -> Int? {
        let (highest, mean) = highestPeak(c)
        guard mean > 0, c[highest] / mean >= confidenceThreshold else { return nil }
        let back = 30 * sampleRate / decimation / 1000
        // A while loop, not `stride`: see ``RuntimeWarmUp`` (generic helpers allocate metadata on first use).
        var l = max(1, highest - back)
        while l < highest {
            if isCandidate(c, l, of: highest) { return l }
            l += 1
        }
        return highest
    }

    /// The echo path changed (device moved, door opened) when the short-memory spectrum's direct path stands
    /// ``challengeDistanceSeconds`` from the estimate for ``challengeUpdates`` updates in a row, agreeing among
    /// themselves: the long spectrum, which still holds seconds of the old path, is replaced by the short one and
    /// the tracker restarts at the new delay. Why: the long spectrum (4 s memory) and the tracker's median (33
    /// estimates) kept the old delay about 8 s after a path change (the scenario matrix's `path_moved`).
    private func challenge() {
        guard let current = delaySamples else { return }
        let c = correlation(recentReal, recentImaginary)
        guard let peak = directPath(c) else {
            challengeRun = 0
            return
        }
        let raw = refined(c, at: peak)
        let rate = Double(sampleRate)
        let agrees = challenger.map { abs($0 - raw) <= challengeAgreementSeconds * rate } ?? false
        challenger = raw
        // The old path must have faded from the short spectrum: a peak that merely stands beside a current one
        // still there (a reflection, or noise before the direct path in 1 s of evidence) is no path change.
        let at = Int((current / Double(decimation)).rounded())
        var old: Float = 0
        for l in max(0, at - 2)...min(lagCount - 1, at + 2) { old = max(old, c[l]) }
        guard abs(raw - current) > challengeDistanceSeconds * rate, old < reflectionRatio * c[peak] else {
            challengeRun = 0
            return
        }
        challengeRun = agrees ? challengeRun + 1 : 1
        guard challengeRun >= challengeUpdates else { return }
        challengeRun = 0
        challengesTaken += 1
        crossReal.baseAddress!.update(from: recentReal.baseAddress!, count: recentReal.count)
        crossImaginary.baseAddress!.update(from: recentImaginary.baseAddress!, count: recentImaginary.count)
        // The drift line's points move with the path (a step would tilt it; the slope stays).
        if let median = tracker.median { drift.shift(by: (raw - median) / rate) }
        tracker.reset()
        let seconds = Double(samplesProcessed) / rate - spectrumAgeSeconds
        for _ in 0..<tracker.jumpConfirmations { tracker.add(raw, seconds: seconds) }
        latestSamples = raw
    }

    /// Whether lag `l` (≥ 1, below the last) is a local peak of `c` at least ``reflectionRatio`` of the highest's:
    /// a candidate for the direct path.
    @inline(__always)
    private func isCandidate(_ c: UnsafeMutablePointer<Float>, _ l: Int, of highest: Int) -> Bool {
        c[l] >= reflectionRatio * c[highest] && c[l] >= c[l - 1] && c[l] >= c[l + 1]
    }

    /// The lag of the highest value in `c` and the mean of its magnitudes.
    private func highestPeak(_ c: UnsafeMutablePointer<Float>) -> (lag: Int, mean: Float) {
        var highest = 0
        var sum: Float = 0
        for l in 0..<lagCount {
            sum += abs(c[l])
            if c[l] > c[highest] { highest = l }
        }
        return (highest, sum / Float(lagCount))
    }

    /// The highest value of `c` over the mean of its magnitudes (0 for a correlation of zeros).
    private func peakOverMean(_ c: UnsafeMutablePointer<Float>) -> Float {
        let (peak, mean) = highestPeak(c)
        return mean > 0 ? c[peak] / mean : 0
    }

    private func pickPeak(_ c: UnsafeMutablePointer<Float>) {
        let (peak, mean) = highestPeak(c)
        var best = peak
        // A mic of exact zeros (nothing correlates): an update without confidence.
        confidence = mean > 0 ? c[best] / mean : 0
        guard confidence >= confidenceThreshold else { return }
        // The direct path: the earliest local peak within 30 ms before the highest that is nearly as high.
        let back = 30 * sampleRate / decimation / 1000
        // Once there is an estimate, the candidate (a local peak that high, the highest included) nearest to it
        // within 2 ms is kept instead: an uncorrected drift blurs the accumulated spectrum (the phase transform
        // gives its blurred bins full weight), and the blur stands 5–12 ms before the direct path as peaks that
        // high (a 200 ppm loop of the 120 ms vector: 6–8 ms off for seconds, `DelayEstimatorDriftTests`).
        let highest = best, current = delaySamples.map { $0 / Double(decimation) }
        let near = 0.002 * Double(sampleRate / decimation)
        var nearest: Int?, nearestDistance = Double.infinity
        var l = max(1, highest - back)
        while l <= highest {
            if isCandidate(c, l, of: highest) {
                if best == highest, l < highest { best = l }
                if let current, abs(Double(l) - current) <= near, abs(Double(l) - current) < nearestDistance {
                    nearest = l
                    nearestDistance = abs(Double(l) - current)
                }
            }
            l += 1
        }
        if let nearest { best = nearest }
        let raw = refined(c, at: best)
        latestSamples = raw
        let agreement = 0.002 * Double(sampleRate)
        // When the delay found was the delay: the accumulated spectrum's contents are this old (without a drift
        // correction they age, with it they stay as old as the newest window).
        let seconds = Double(samplesProcessed) / Double(sampleRate) - spectrumAgeSeconds
        guard let median = tracker.median else {
            // The first windows carry little echo and a peak can stand out by chance (2 ms on the 120 ms echo
            // vector), which would set the canceller on a wrong alignment for a second: the first estimate
            // needs two consecutive windows that agree.
            if let candidate, abs(candidate - raw) <= agreement { tracker.add(raw, seconds: seconds) }
            candidate = raw
            return
        }
        // A jump (device switched, path changed) starts a new drift line: the old one would tilt the new.
        if tracker.add(raw, seconds: seconds) { drift = DriftFit() }
        // The drift line goes through estimates that agree with the steadied one (a reflection taken for a window,
        // or a jump, would tilt it), once the estimate has settled (``settledUpdates``): the first seconds' estimates
        // still converge by a few ms, a step the line would read as drift.
        if abs(raw - median) <= agreement, updatesSinceEstimate >= settledUpdates {
            // Filed at the update's time, not at the delay's (``seconds``): while the spectrum fills, the delay's
            // times advance slower than the clock, and the line, short of span, would be believed seconds later.
            drift.add(seconds: seconds + spectrumAgeSeconds, delay: raw / Double(sampleRate))
        }
    }
}

