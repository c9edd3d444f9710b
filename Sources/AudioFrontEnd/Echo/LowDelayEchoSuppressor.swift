#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Residual-echo suppression after speex MDF with a delay of a few samples instead of speexdsp's preprocessor's
/// one block: the gains are found on a long window, as speexdsp does, and applied by a short linear-phase filter
/// (a filter-bank equalizer), so the frequency resolution of the estimate does not cost latency.
///
/// Each frame: the filter's output `e` and its echo estimate `y = mic − e` over the last two frames are windowed
/// (Hann) and transformed (one complex FFT for both); the echo that leaks past the filter is predicted per bin as
/// `leak · |Y|²`, with `leak` the regression of the error's spectral changes on the estimate's (speexdsp MDF's own
/// rule, which it keeps private), held with a decay of 0.85 a frame (the room's tail); stationary noise is
/// tracked by its minimum. Each bin gets the square root of a Wiener gain on the decision-directed prior SNR
/// against noise plus predicted echo, floored at `√((noise + ε·echo) / (noise + echo))`: noise passes, echo falls
/// by at most ``Settings/suppressDecibels`` (ε) while only the far end talks and
/// ``Settings/suppressActiveDecibels`` while the near end talks too (judged per frame: the error's level over
/// noise plus predicted echo, 0 dB far end alone, 4 dB and more near end, released by 0.8 a frame). The gains
/// become a zero-phase impulse response truncated to ±``delay`` samples (Hann-tapered), and the frame is filtered
/// through it, its coefficients moving from the previous frame's in 2 ms steps: the output lags the input by
/// ``delay`` samples. About 0.1 M instructions per 10 ms at 16 kHz (1.10 × the default chain with it).
///
/// The constants were chosen on the scenario matrix's tuning half only (`evaluate.py --half tune`, echo,
/// echo_hard, drift, path-change and double-talk kinds; README, "Latency").
///
/// Created with the canceller (allocates); ``process(_:mic:)`` is real-time safe (no allocation, locks or
/// throwing) and runs on the processing thread, one thread at a time.
final class LowDelayEchoSuppressor {
    /// What the stage does; checked by its owner.
    struct Settings: Equatable {
        var sampleRate: Int
        var frameLength: Int
        /// The output's delay, ms (1...5): half the filter's length.
        var delayMilliseconds: Int
        /// Deepest echo attenuation while only the far end talks, dB (negative).
        var suppressDecibels: Int
        /// Deepest echo attenuation while the near end talks too, dB (negative).
        var suppressActiveDecibels: Int
    }

    let frameLength: Int
    /// Samples the output lags the input by.
    let delay: Int
    private let fftLength: Int
    private let bins: Int
    private let windowLength: Int
    private let fft: ComplexFFT
    private let farFloor: Float
    private let activeFloor: Float
    /// speexdsp MDF's constants for the leak regression at this frame length and rate.
    private let specAverage: Float
    private let beta0: Float
    private let betaMax: Float

    /// One allocation holding every per-bin and per-sample array (see `init`).
    private let storage: UnsafeMutableBufferPointer<Float>
    private let window: UnsafeMutablePointer<Float>
    private let errorHistory: UnsafeMutablePointer<Float>
    private let echoHistory: UnsafeMutablePointer<Float>
    private let real: UnsafeMutablePointer<Float>
    private let imaginary: UnsafeMutablePointer<Float>
    private let smoothedError: UnsafeMutablePointer<Float>
    private let smoothedEcho: UnsafeMutablePointer<Float>
    private let residual: UnsafeMutablePointer<Float>
    private let noise: UnsafeMutablePointer<Float>
    private let previousClean: UnsafeMutablePointer<Float>
    private let gains: UnsafeMutablePointer<Float>
    private let taper: UnsafeMutablePointer<Float>
    /// The filter's half from the centre out (it is symmetric), the previous frame's, and their mix in use.
    private let filter: UnsafeMutablePointer<Float>
    private let previousFilter: UnsafeMutablePointer<Float>
    private let mixed: UnsafeMutablePointer<Float>
    /// The last 2 · ``delay`` inputs, then the frame: what the filter reads.
    private let input: UnsafeMutablePointer<Float>

    private var pey: Float = 0
    private var pyy: Float = 1
    private var nearActivity: Float = 0
    private var started = false

    init(settings s: Settings) {
        frameLength = s.frameLength
        delay = s.delayMilliseconds * s.sampleRate / 1000
        windowLength = 2 * s.frameLength
        var n = 2
        while n < windowLength { n *= 2 }
        fftLength = n
        bins = n / 2 + 1
        fft = ComplexFFT(length: n)
        farFloor = powf(10, Float(s.suppressDecibels) / 10)
        activeFloor = powf(10, Float(s.suppressActiveDecibels) / 10)
        specAverage = Float(s.frameLength) / Float(s.sampleRate)
        beta0 = 2 * specAverage
        betaMax = specAverage / 2
        let sizes = [windowLength, windowLength, windowLength, n, n, bins, bins, bins, bins, bins, bins,
                     delay + 1, delay + 1, delay + 1, delay + 1, 2 * delay + s.frameLength]
        storage = .zeroed(capacity: sizes.reduce(0, +))
        var next = storage.baseAddress!
        func take(_ count: Int) -> UnsafeMutablePointer<Float> {
            defer { next += count }
            return next
        }
        window = take(sizes[0]); errorHistory = take(sizes[1]); echoHistory = take(sizes[2])
        real = take(sizes[3]); imaginary = take(sizes[4])
        smoothedError = take(sizes[5]); smoothedEcho = take(sizes[6]); residual = take(sizes[7])
        noise = take(sizes[8]); previousClean = take(sizes[9]); gains = take(sizes[10])
        taper = take(sizes[11]); filter = take(sizes[12]); previousFilter = take(sizes[13]); mixed = take(sizes[14])
        input = take(sizes[15])
        reset()
    }

    deinit { storage.deallocate() }

    /// Forgets every estimate (and remakes the tables): the filter passes the input through, delayed. Real-time
    /// safe.
    func reset() {
        storage.update(repeating: 0)
        for i in 0..<windowLength { window[i] = 0.5 - 0.5 * cosf(2 * Float.pi * Float(i) / Float(windowLength)) }
        for i in 0...delay { taper[i] = 0.5 + 0.5 * cosf(Float.pi * Float(i) / Float(delay + 1)) }
        filter[0] = 1
        previousFilter[0] = 1
        pey = 0
        pyy = 1
        nearActivity = 0
        started = false
    }

    /// Suppresses the residual echo in `frame` (the MDF filter's output, ``frameLength`` samples, replaced by the
    /// suppressed frame ``delay`` samples late); `mic` is the capture the filter ran on. Real-time safe.
    func process(_ frame: UnsafeMutablePointer<Int16>, mic: UnsafePointer<Int16>) {
        let l = frameLength
        var errorEnergy: Float = 0, echoEnergy: Float = 0
        errorHistory.update(from: errorHistory + l, count: l)
        echoHistory.update(from: echoHistory + l, count: l)
        for i in 0..<l {
            let e = Float(frame[i]), y = Float(mic[i]) - e
            errorHistory[l + i] = e
            echoHistory[l + i] = y
            errorEnergy += e * e
            echoEnergy += y * y
        }
        spectra()
        updateLeak(errorEnergy: errorEnergy, echoEnergy: echoEnergy)
        updateGains()
        designFilter()
        filterFrame(frame)
    }

    /// Both signals' windowed spectra in one complex FFT (error real, echo imaginary), split into power spectra:
    /// the error's in `real`, the echo's in `imaginary` (first ``bins`` values, scaled by 1/N as speexdsp's).
    private func spectra() {
        let n = fftLength
        for i in 0..<windowLength {
            real[i] = window[i] * errorHistory[i]
            imaginary[i] = window[i] * echoHistory[i]
        }
        for i in windowLength..<n {
            real[i] = 0
            imaginary[i] = 0
        }
        fft.forward(real: real, imaginary: imaginary)
        let scale = 1 / Float(n * n)
        // Z[k] = E[k] + i·Y[k]: E[k] = (Z[k] + conj Z[N−k]) / 2, Y[k] = (Z[k] − conj Z[N−k]) / 2i. Bin k ≤ N/2
        // is written in place; N−k is above N/2 (never written) or k itself (read first).
        for k in 0..<bins {
            let m = (n - k) % n
            let ar = real[k], ai = imaginary[k], br = real[m], bi = imaginary[m]
            let er = (ar + br) / 2, ei = (ai - bi) / 2
            let yr = (ai + bi) / 2, yi = (br - ar) / 2
            real[k] = (er * er + ei * ei) * scale
            imaginary[k] = (yr * yr + yi * yi) * scale
        }
    }

    /// speexdsp MDF's leak estimate (the share of the echo estimate's power that the filter misses), then the
    /// predicted residual echo per bin.
    private func updateLeak(errorEnergy: Float, echoEnergy: Float) {
        var crossSum: Float = 0, echoSum: Float = 0
        for k in 0..<bins {
            let eh = real[k] - smoothedError[k], yh = imaginary[k] - smoothedEcho[k]
            crossSum += eh * yh
            echoSum += yh * yh
            smoothedError[k] += specAverage * (real[k] - smoothedError[k])
            smoothedEcho[k] += specAverage * (imaginary[k] - smoothedEcho[k])
        }
        echoSum = sqrtf(echoSum)
        let cross = echoSum > 0 ? crossSum / echoSum : 0
        if errorEnergy > 0 {
            let alpha = min(beta0 * echoEnergy, betaMax * errorEnergy) / errorEnergy
            pey += alpha * (cross - pey)
            pyy += alpha * (echoSum - pyy)
        }
        pyy = max(pyy, 1)
        pey = min(max(pey, 0.005 * pyy), pyy)
        let leak = pey / pyy
        for k in 0..<bins { residual[k] = max(0.85 * residual[k], leak * imaginary[k]) }
    }

    /// Noise by its minimum, near-end activity per frame, then each bin's gain.
    private func updateGains() {
        var errorSum: Float = 0, interferenceSum: Float = 1e-3
        for k in 0..<bins {
            let clean = max(real[k] - residual[k], 0)
            if !started || clean < noise[k] {
                noise[k] = started ? noise[k] + 0.3 * (clean - noise[k]) : clean
            } else {
                noise[k] = noise[k] * 1.007 + 1e-6 // about 3 dB a second at 10 ms frames, and up from zero
            }
            errorSum += real[k]
            interferenceSum += noise[k] + residual[k]
        }
        started = true
        let excess = 10 * log10f(max(errorSum / interferenceSum, 1e-6))
        let target = min(max(excess / 4, 0), 1)
        nearActivity = max(target, 0.8 * nearActivity)
        let floor = farFloor + nearActivity * (activeFloor - farFloor)
        for k in 0..<bins {
            let interference = noise[k] + residual[k] + 1e-3
            let posterior = real[k] / interference
            let prior = 0.9 * previousClean[k] / interference + 0.1 * max(posterior - 1, 0)
            let gain = max(sqrtf(prior / (1 + prior)), min(sqrtf((noise[k] + floor * residual[k]) / interference), 1))
            gains[k] = gain
            previousClean[k] = gain * gain * real[k]
        }
    }

    /// The gains' zero-phase impulse response (a forward FFT of the real, even gain curve gives N times it),
    /// truncated and tapered to ±``delay``: its half from the centre out, the previous frame's kept for the
    /// cross-fade.
    private func designFilter() {
        let n = fftLength, half = n / 2
        previousFilter.update(from: filter, count: delay + 1)
        real[0] = gains[0]
        imaginary[0] = 0
        for k in 1...half {
            real[k] = gains[k]
            real[n - k] = gains[k]
            imaginary[k] = 0
            imaginary[n - k] = 0
        }
        fft.forward(real: real, imaginary: imaginary)
        let scale = 1 / Float(n)
        for t in 0...delay { filter[t] = real[t] * scale * taper[t] }
    }

    /// Filters the frame through the symmetric filter, moving from the previous frame's to the new one in
    /// ``crossFadeSteps`` steps across the frame.
    private func filterFrame(_ frame: UnsafeMutablePointer<Int16>) {
        let l = frameLength, history = 2 * delay
        for i in 0..<l { input[history + i] = Float(frame[i]) }
        var step = -1
        for i in 0..<l {
            let now = i * Self.crossFadeSteps / l
            if now != step {
                step = now
                let weight = Float(now + 1) / Float(Self.crossFadeSteps)
                for t in 0...delay { mixed[t] = previousFilter[t] + weight * (filter[t] - previousFilter[t]) }
            }
            let centre = history + i - delay
            var value = mixed[0] * input[centre]
            for t in 1...delay { value += mixed[t] * (input[centre - t] + input[centre + t]) }
            frame[i] = SampleConversion.clippedInt16(value)
        }
        input.update(from: input + l, count: history)
    }

    /// Steps of the cross-fade from one frame's filter to the next (2 ms each at 10 ms frames).
    static let crossFadeSteps = 5
}
