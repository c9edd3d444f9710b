#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The barge-in decision's per-band view of the mic's excess over the echo the reference predicts
/// (``FrontEndConfiguration/BargeIn/bandWeight``): the mic and the aligned reference in seven bands (100 Hz to
/// 8 kHz, up to half the rate), each band with its own reference envelope and path gain learned on echo-only
/// frames, like the broadband ones of ``BargeInDetector``. The frame's band excess is the mean over the bands of
/// each band's excess (-10...20 dB): a talker who stands under the echo overall still stands above it in the bands
/// where the echo is weak, which the broadband level (the loudest band's) hides.
///
/// Created on the control thread (allocates); ``update(mic:reference:echoOnly:)`` runs on the processing thread
/// and is real-time safe.
final class BargeInBands {
    static let edgesHertz: [Float] = [100, 300, 600, 1000, 1600, 2500, 4000, 8000]
    private let fft: ComplexFFT
    private let window: UnsafeMutableBufferPointer<Float>
    private let real: UnsafeMutableBufferPointer<Float>
    private let imaginary: UnsafeMutableBufferPointer<Float>
    /// Per band: its first and last FFT bin, the reference envelope (dB), the path gain (dB) and its frames.
    private let bins: UnsafeMutableBufferPointer<(Int, Int)>
    private let envelope: UnsafeMutableBufferPointer<Float>
    private let gain: UnsafeMutableBufferPointer<Float>
    /// The fast path gain per band (``FrontEndConfiguration/BargeIn/fastGainMilliseconds``), its rate per frame
    /// (0 = off), the bands' excess this frame and how many loudest ones the mean takes (0 = all).
    private let fastGain: UnsafeMutableBufferPointer<Float>
    private let fastRate: Float
    private let excess: UnsafeMutableBufferPointer<Float>
    private let top: Int
    private let micLevels: UnsafeMutableBufferPointer<Float>
    private let referenceLevels: UnsafeMutableBufferPointer<Float>
    private let bands: Int
    private var gainFrames = 0
    private let decayPerFrame: Float

    init(sampleRate: Int, frameLength: Int, reverberationMilliseconds: Int, fastGainMilliseconds: Int = 0,
         top: Int = 0, pessimistic: Bool = true) {
        var n = 2
        while n < frameLength { n *= 2 }
        fft = ComplexFFT(length: n)
        window = .allocate(capacity: frameLength)
        for i in 0..<frameLength {
            window[i] = Float(0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(frameLength)))
        }
        real = .zeroed(capacity: n)
        imaginary = .zeroed(capacity: n)
        let hertzPerBin = Float(sampleRate) / Float(n)
        var ranges: [(Int, Int)] = []
        for (low, high) in zip(Self.edgesHertz, Self.edgesHertz.dropFirst()) where low < Float(sampleRate) / 2 {
            let first = max(1, Int((low / hertzPerBin).rounded(.up)))
            let last = min(n / 2 - 1, Int((min(high, Float(sampleRate) / 2) / hertzPerBin).rounded(.down)))
            if last >= first { ranges.append((first, last)) }
        }
        bands = ranges.count
        bins = .allocate(capacity: max(1, bands))
        _ = bins.initialize(from: ranges)
        envelope = .allocate(capacity: max(1, bands))
        envelope.initialize(repeating: -160)
        gain = .zeroed(capacity: max(1, bands))
        micLevels = .zeroed(capacity: max(1, bands))
        referenceLevels = .zeroed(capacity: max(1, bands))
        decayPerFrame = 600 / Float(reverberationMilliseconds)
        fastGain = .zeroed(capacity: max(1, bands))
        fastRate = fastGainMilliseconds > 0 && pessimistic ? min(1, 10 / Float(fastGainMilliseconds)) : 0
        excess = .zeroed(capacity: max(1, bands))
        self.top = top > 0 ? min(top, bands) : bands
    }

    deinit {
        window.deallocate()
        real.deallocate()
        imaginary.deallocate()
        bins.deallocate()
        envelope.deallocate()
        gain.deallocate()
        fastGain.deallocate()
        excess.deallocate()
        micLevels.deallocate()
        referenceLevels.deallocate()
    }

    /// The band levels of `samples` (dB, full scale 32768) into `levels`.
    private func analyse(_ samples: UnsafeBufferPointer<Int16>, into levels: UnsafeMutableBufferPointer<Float>) {
        let n = fft.length
        for i in 0..<n {
            real[i] = i < samples.count && i < window.count ? Float(samples[i]) / 32768 * window[i] : 0
            imaginary[i] = 0
        }
        fft.forward(real: real.baseAddress!, imaginary: imaginary.baseAddress!)
        for b in 0..<bands {
            var power: Float = 0
            for k in bins[b].0...bins[b].1 { power += real[k] * real[k] + imaginary[k] * imaginary[k] }
            levels[b] = 10 * log10(max(power / Float(bins[b].1 - bins[b].0 + 1), 1e-16))
        }
    }

    /// Takes the frame's (delayed) mic and aligned reference; learns the band gains when `echoOnly`; returns the
    /// mean band excess of the mic over the echo predicted in each band, dB (0 before the gains are known).
    func update(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>, echoOnly: Bool) -> Float {
        guard bands > 0 else { return 0 }
        analyse(mic, into: micLevels)
        analyse(reference, into: referenceLevels)
        if echoOnly { gainFrames += 1 }
        for b in 0..<bands {
            envelope[b] = max(referenceLevels[b], envelope[b] - decayPerFrame)
            if echoOnly, envelope[b] > -100 {
                gain[b] += max(0.01, 1 / Float(gainFrames)) * (micLevels[b] - envelope[b] - gain[b])
                fastGain[b] += max(fastRate, 1 / Float(gainFrames)) * (micLevels[b] - envelope[b] - fastGain[b])
            }
            let predicted = envelope[b] + (fastRate > 0 ? max(gain[b], fastGain[b]) : gain[b])
            excess[b] = min(20, max(-10, micLevels[b] - predicted))
        }
        guard gainFrames >= BargeInDetector.gainWarmUpFrames else { return 0 }
        var sum: Float = 0
        guard top < bands else {
            for b in 0..<bands { sum += excess[b] }
            return sum / Float(bands)
        }
        // The mean of the `top` largest (a partial selection sort in place; at most 7 bands).
        for i in 0..<top {
            var best = i
            for j in (i + 1)..<bands where excess[j] > excess[best] { best = j }
            if best != i { excess.swapAt(i, best) }
            sum += excess[i]
        }
        return sum / Float(top)
    }
}
