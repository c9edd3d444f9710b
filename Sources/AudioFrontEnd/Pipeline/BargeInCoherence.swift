#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much the cancellers' output still follows the reference (``FrontEndConfiguration/BargeIn/coherenceLimit``):
/// per frame, the magnitude-squared coherence between the output and the aligned reference delayed by 0...30
/// frames (0-300 ms), over Hann windows of the power of two at or above 32 ms (512 samples at 16 kHz, 42.7 ms at
/// 48 kHz) every frame, bins 200 Hz-4 kHz, cross-spectra smoothed with a 400 ms time constant; the bins' mean at
/// the lag where it is largest. A residual leak of the echo is a linear
/// function of the reference and stands at 0.1-0.3 (the room's tail 100-300 ms late, the path after a change); a
/// talker is not and stays at the estimator's floor (0.02-0.08). Settings from the tuning material
/// (`Scripts/scenarios/bargein_coherence.py` with `LAG_MIN=0 LAG=30 SMOOTH=400`, Scripts/scenarios/README.md
/// "Does the output still follow the reference?").
///
/// Created on the control thread (allocates); ``update(output:reference:)`` runs on the processing thread and is
/// real-time safe.
final class BargeInCoherence {
    /// Lags (frames) and the smoothing time constant (ms).
    static let lags = 0...30
    static let smoothingMilliseconds: Float = 400
    static let lowestHertz: Float = 200, highestHertz: Float = 4000

    private let fft: ComplexFFT
    private let frameLength: Int
    private let window: UnsafeMutableBufferPointer<Float>
    /// The last window of output and reference samples (oldest first).
    private let outputHistory: UnsafeMutableBufferPointer<Float>
    private let referenceHistory: UnsafeMutableBufferPointer<Float>
    private let real: UnsafeMutableBufferPointer<Float>
    private let imaginary: UnsafeMutableBufferPointer<Float>
    private let firstBin: Int
    private let binCount: Int
    /// The bins rounded up to a multiple of 8 (one row of the ring and of the cross-spectra).
    private let rowLength: Int
    /// The output's spectrum this frame and its smoothed power's reciprocal (per bin).
    private let outputReal: UnsafeMutableBufferPointer<Float>
    private let outputImaginary: UnsafeMutableBufferPointer<Float>
    private let outputPower: UnsafeMutableBufferPointer<Float>
    private let inverseOutputPower: UnsafeMutableBufferPointer<Float>
    /// The reference's smoothed power (per bin), and per slot of a ring of the last `lags.upperBound + 1` frames:
    /// its spectrum and its smoothed power's reciprocal.
    private let referencePower: UnsafeMutableBufferPointer<Float>
    private let ringReal: UnsafeMutableBufferPointer<Float>
    private let ringImaginary: UnsafeMutableBufferPointer<Float>
    private let ringInversePower: UnsafeMutableBufferPointer<Float>
    /// Per lag and bin: the smoothed cross-spectrum of the output and the reference that many frames back.
    private let crossReal: UnsafeMutableBufferPointer<Float>
    private let crossImaginary: UnsafeMutableBufferPointer<Float>
    private let slots: Int
    /// The ring's slot of this frame.
    private var slot = 0
    /// Frames one analysis window spans (4 at 16 kHz: 512 samples over 160-sample frames, rounded up).
    private let windowFrames: Int
    /// Frames until a pending ``reset()`` (0: none; ``restart(afterFrames:)``).
    private var resetCountdown = 0
    private let keep: Float
    private static let floor: Float = 1e-12
    /// Under these a power, or a cross-spectrum term (whose square must stay a normal float), counts as 0: far
    /// under any signal's (a -90 dBFS frame's bin power is about 1e-7) and under ``floor``'s effect.
    private static let tiny: Float = 1e-20
    private static let tinyCross: Float = 1e-15

    init(sampleRate: Int, frameLength: Int) {
        // 32 ms, rounded up to a power of two (512 at 16 kHz).
        var n = 2
        while n < sampleRate * 32 / 1000 || n < frameLength { n *= 2 }
        fft = ComplexFFT(length: n)
        self.frameLength = frameLength
        windowFrames = (n + frameLength - 1) / frameLength
        window = .allocate(capacity: n)
        for i in 0..<n { window[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))) }
        outputHistory = .zeroed(capacity: n)
        referenceHistory = .zeroed(capacity: n)
        real = .zeroed(capacity: n)
        imaginary = .zeroed(capacity: n)
        let hertzPerBin = Float(sampleRate) / Float(n)
        firstBin = max(1, Int((Self.lowestHertz / hertzPerBin).rounded(.up)))
        let lastBin = min(n / 2 - 1, Int((Self.highestHertz / hertzPerBin).rounded(.down)))
        binCount = max(0, lastBin - firstBin + 1)
        rowLength = max(8, (binCount + 7) / 8 * 8)
        let bins = rowLength
        outputReal = .zeroed(capacity: bins)
        outputImaginary = .zeroed(capacity: bins)
        outputPower = .zeroed(capacity: bins)
        inverseOutputPower = .zeroed(capacity: bins)
        referencePower = .zeroed(capacity: bins)
        slots = Self.lags.upperBound + 1
        ringReal = .zeroed(capacity: slots * bins)
        ringImaginary = .zeroed(capacity: slots * bins)
        ringInversePower = .allocate(capacity: slots * bins)
        ringInversePower.initialize(repeating: 1 / Self.floor)
        crossReal = .zeroed(capacity: slots * bins)
        crossImaginary = .zeroed(capacity: slots * bins)
        keep = Float(exp(-Double(frameLength) / Double(sampleRate) / (Double(Self.smoothingMilliseconds) / 1000)))
    }

    deinit {
        // One call each (an array of the buffers would allocate, wherever the chain is released).
        window.deallocate()
        outputHistory.deallocate()
        referenceHistory.deallocate()
        real.deallocate()
        imaginary.deallocate()
        outputReal.deallocate()
        outputImaginary.deallocate()
        outputPower.deallocate()
        inverseOutputPower.deallocate()
        referencePower.deallocate()
        ringReal.deallocate()
        ringImaginary.deallocate()
        ringInversePower.deallocate()
        crossReal.deallocate()
        crossImaginary.deallocate()
    }

    /// Forgets the spectra seen so far: the reference's alignment jumped, and what the ring holds no longer lines
    /// up with what the cancellers now see. The estimate starts from one frame again, high (1 at the first frame:
    /// a single frame's spectra are always coherent) and falling to its floor over the smoothing time, so a
    /// decision right after a jump waits for evidence that the output no longer follows the realigned reference.
    /// Processing thread; real-time safe.
    func reset() {
        // One call each: an array of the buffers would allocate.
        outputPower.update(repeating: 0)
        referencePower.update(repeating: 0)
        ringReal.update(repeating: 0)
        ringImaginary.update(repeating: 0)
        crossReal.update(repeating: 0)
        crossImaginary.update(repeating: 0)
        ringInversePower.update(repeating: 1 / Self.floor)
    }

    /// Schedules a ``reset()`` for when the realigned reference has filled a window: `frames` from now it first
    /// reaches ``update(output:reference:)``, then a window's frames later the window holds nothing older.
    /// Processing thread; real-time safe.
    func restart(afterFrames frames: Int) {
        resetCountdown = frames + windowFrames
    }

    @inline(__always)
    private func load(_ buffer: UnsafeMutableBufferPointer<Float>, _ index: Int) -> SIMD8<Float> {
        UnsafeRawPointer(buffer.baseAddress! + index).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    private func store(_ value: SIMD8<Float>, _ buffer: UnsafeMutableBufferPointer<Float>, _ index: Int) {
        UnsafeMutableRawPointer(buffer.baseAddress! + index).storeBytes(of: value, as: SIMD8<Float>.self)
    }

    /// Appends `samples` (at most a frame) to `history`, the oldest shifted out; a short frame is padded with 0.
    private func append(_ samples: UnsafeBufferPointer<Int16>, to history: UnsafeMutableBufferPointer<Float>) {
        let n = history.count
        let base = history.baseAddress!
        base.update(from: base + frameLength, count: n - frameLength)
        for i in 0..<frameLength {
            history[n - frameLength + i] = i < samples.count ? Float(samples[i]) / 32768 : 0
        }
    }

    /// Takes the frame's output and aligned reference (the same span of time, a frame each) and returns the
    /// largest over the lags of the bins' mean coherence, 0...1.
    func update(output: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) -> Float {
        guard binCount > 0 else { return 0 }
        if resetCountdown > 0 {
            resetCountdown -= 1
            if resetCountdown == 0 { reset() }
        }
        append(output, to: outputHistory)
        append(reference, to: referenceHistory)
        // Both spectra from one complex transform: output real, reference imaginary.
        let n = fft.length
        for i in 0..<n {
            real[i] = outputHistory[i] * window[i]
            imaginary[i] = referenceHistory[i] * window[i]
        }
        fft.forward(real: real.baseAddress!, imaginary: imaginary.baseAddress!)
        let ring = slot * rowLength
        let blend = 1 - keep
        for b in 0..<binCount {
            let k = firstBin + b
            let ar = real[k], ai = imaginary[k], br = real[n - k], bi = imaginary[n - k]
            // Output X = (Z[k] + conj Z[n-k]) / 2, reference R = (Z[k] - conj Z[n-k]) / 2i.
            let xr = (ar + br) / 2, xi = (ai - bi) / 2
            let rr = (ai + bi) / 2, ri = (br - ar) / 2
            outputReal[b] = xr
            outputImaginary[b] = xi
            // Powers that decay over digital silence are flushed to 0 before they turn subnormal (slow on x86).
            let outputNow = keep * outputPower[b] + blend * (xr * xr + xi * xi)
            outputPower[b] = outputNow < Self.tiny ? 0 : outputNow
            inverseOutputPower[b] = 1 / (outputPower[b] + Self.floor)
            let referenceNow = keep * referencePower[b] + blend * (rr * rr + ri * ri)
            referencePower[b] = referenceNow < Self.tiny ? 0 : referenceNow
            ringReal[ring + b] = rr
            ringImaginary[ring + b] = ri
            ringInversePower[ring + b] = 1 / (referencePower[b] + Self.floor)
        }
        // Eight bins at a time (the rows are padded to a multiple of 8 with bins that stay 0).
        let keeps = SIMD8<Float>(repeating: keep), blends = SIMD8<Float>(repeating: blend)
        let tinyCross = SIMD8<Float>(repeating: Self.tinyCross), negativeTinyCross = -tinyCross
        var best: Float = 0
        for lag in Self.lags {
            let past = (slot - lag + slots) % slots * rowLength
            let cross = lag * rowLength
            var sum = SIMD8<Float>()
            var b = 0
            while b < rowLength {
                // X times the conjugate of R `lag` frames back, smoothed.
                let xr = load(outputReal, b), xi = load(outputImaginary, b)
                let rr = load(ringReal, past + b), ri = load(ringImaginary, past + b)
                var cr = keeps * load(crossReal, cross + b) + blends * (xr * rr + xi * ri)
                var ci = keeps * load(crossImaginary, cross + b) + blends * (xi * rr - xr * ri)
                // Flushed before they turn subnormal (their squares first), as the powers.
                cr.replace(with: 0, where: cr .< tinyCross .& cr .> negativeTinyCross)
                ci.replace(with: 0, where: ci .< tinyCross .& ci .> negativeTinyCross)
                store(cr, crossReal, cross + b)
                store(ci, crossImaginary, cross + b)
                sum += (cr * cr + ci * ci) * load(inverseOutputPower, b) * load(ringInversePower, past + b)
                b += 8
            }
            best = max(best, sum.sum() / Float(binCount))
        }
        slot = slot + 1 == slots ? 0 : slot + 1
        return min(1, best)
    }
}
