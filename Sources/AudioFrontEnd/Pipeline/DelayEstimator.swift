#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks the bulk delay between the reference (what the device plays) and its echo in the microphone.
///
/// Method: both signals are cut into short blocks (2 ms); each block gives an onset feature, the rise of its log
/// energy over the previous block (zero when falling or below a level gate). Echo onsets follow reference onsets
/// by the bulk delay (the direct path and early reflections carry the onset), so the running cross-correlation
/// of the two onset sequences, with exponential forgetting, peaks at the delay. Sparse, cheap (one multiply-add
/// per lag per block) and insensitive to level and to the room's tail. The estimate is the peak lag, refined by
/// parabolic interpolation, accepted only when the peak stands clearly above the mean correlation. The estimate
/// reported is steadied by a ``DelayTracker`` (median over the last seconds of far-end activity).
///
/// Real-time safe after creation; one thread (the pipeline's processing thread).
final class DelayEstimator {
    let sampleRate: Int
    let blockLength: Int
    let lagCount: Int
    private let forgetting: Float
    private let gateEnergy: Float
    private var correlation: UnsafeMutableBufferPointer<Float>
    private var referenceFeatures: UnsafeMutableBufferPointer<Float>
    private var historyIndex = 0
    private var micLogEnergy: Float = 0
    private var referenceLogEnergy: Float = 0
    private let gateLogEnergy: Float
    private var blocksSinceUpdate = 0
    private var referenceActivity: Float = 0
    /// The latest confident peak lag in samples, or nil before one.
    private(set) var latestSamples: Double?
    /// Raw estimates steadied for the alignment (see ``DelayTracker``).
    private let tracker: DelayTracker
    private var acceptedSinceTracked = 0
    private var drift: DriftFit
    private var blocksProcessed = 0
    /// The current estimate in samples (the steadied one), or nil before a confident one.
    var delaySamples: Double? { tracker.median }
    /// Peak over mean of the correlation at the last update (higher is surer).
    private(set) var confidence: Float = 0
    /// Minimum peak-to-mean ratio for an estimate to be accepted.
    var confidenceThreshold: Float = 2

    /// - Parameters:
    ///   - sampleRate: rate of both signals, Hz.
    ///   - maximumDelayMilliseconds: largest delay searched.
    ///   - gateDecibels: blocks quieter than this (dBFS) give no onsets.
    init(sampleRate: Int, maximumDelayMilliseconds: Int = 1000, gateDecibels: Float = -55) {
        self.sampleRate = sampleRate
        self.blockLength = max(1, sampleRate / 500)
        self.lagCount = max(2, maximumDelayMilliseconds * sampleRate / 1000 / blockLength + 1)
        // Time constant of the correlation memory: about 4 s.
        self.forgetting = expf(-Float(blockLength) / (4 * Float(sampleRate)))
        self.gateEnergy = powf(10, gateDecibels / 10) * 32768 * 32768
        self.gateLogEnergy = log10f(gateEnergy)
        tracker = DelayTracker(sampleRate: sampleRate)
        drift = DriftFit()
        micLogEnergy = gateLogEnergy
        referenceLogEnergy = gateLogEnergy
        correlation = .zeroed(capacity: lagCount)
        referenceFeatures = .zeroed(capacity: lagCount)
    }

    deinit {
        correlation.deallocate()
        referenceFeatures.deallocate()
    }

    /// Clock drift between reference and mic in parts per million (positive: the echo lags more and more, the
    /// mic clock is fast), from the slope of the raw estimates; nil until 30 s of far-end activity spanning a
    /// minute. Processing thread.
    var driftPartsPerMillion: Double? { drift.slope.map { $0 * 1e6 } }

    /// Delay in milliseconds, or nil before a confident estimate.
    var delayMilliseconds: Double? { delaySamples.map { $0 * 1000 / Double(sampleRate) } }

    /// Feeds one frame of microphone and of reference at the same sample positions (the reference not shifted).
    /// Both buffers have the same length, a multiple of the block length (10 ms frames are). Real-time safe.
    func process(mic: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>) {
        let blocks = min(mic.count, reference.count) / blockLength
        for b in 0..<blocks {
            let start = b * blockLength
            let micFeature = onset(energy: energy(mic, start), previous: &micLogEnergy)
            let refEnergy = energy(reference, start)
            let refFeature = onset(energy: refEnergy, previous: &referenceLogEnergy)
            referenceActivity = referenceActivity * forgetting + (refEnergy > gateEnergy ? 1 - forgetting : 0)
            historyIndex = historyIndex == 0 ? lagCount - 1 : historyIndex - 1
            referenceFeatures[historyIndex] = refFeature
            accumulate(micFeature)
            blocksSinceUpdate += 1
            blocksProcessed += 1
            if blocksSinceUpdate >= 25 {
                blocksSinceUpdate = 0
                updateEstimate()
            }
        }
    }

    /// Forgets everything. Real-time safe.
    func reset() {
        _ = correlation.update(repeating: 0)
        _ = referenceFeatures.update(repeating: 0)
        latestSamples = nil
        tracker.reset()
        acceptedSinceTracked = 0
        drift = DriftFit()
        confidence = 0
        referenceActivity = 0
        micLogEnergy = gateLogEnergy
        referenceLogEnergy = gateLogEnergy
    }

    private func energy(_ x: UnsafeBufferPointer<Int16>, _ start: Int) -> Float {
        var sum: Float = 0
        for i in start..<(start + blockLength) {
            let v = Float(x[i])
            sum += v * v
        }
        return sum / Float(blockLength)
    }

    private func onset(energy: Float, previous: inout Float) -> Float {
        let logEnergy = energy > gateEnergy ? log10f(energy) : gateLogEnergy
        let rise = logEnergy - previous
        previous = logEnergy
        return rise > 0 ? rise : 0
    }

    /// correlation[l] = λ·correlation[l] + mic(t)·reference(t − l), history stored newest first from historyIndex.
    private func accumulate(_ micFeature: Float) {
        let n = lagCount
        let firstRun = n - historyIndex
        let c = correlation.baseAddress!, h = referenceFeatures.baseAddress!
        let lambda = forgetting
        if micFeature == 0 {
            for l in 0..<n { c[l] *= lambda }
            return
        }
        for l in 0..<firstRun { c[l] = c[l] * lambda + micFeature * h[historyIndex + l] }
        for l in firstRun..<n { c[l] = c[l] * lambda + micFeature * h[l - firstRun] }
    }

    private func updateEstimate() {
        guard referenceActivity > 0.05 else { return } // hold the last estimate while the far end is quiet
        var best = 0
        var sum: Float = 0
        for l in 0..<lagCount {
            sum += correlation[l]
            if correlation[l] > correlation[best] { best = l }
        }
        let mean = sum / Float(lagCount)
        guard mean > 0 else { return }
        confidence = correlation[best] / mean
        guard confidence >= confidenceThreshold else { return }
        var offset: Double = 0
        if best > 0, best < lagCount - 1 {
            let a = Double(correlation[best - 1]), b = Double(correlation[best]), c = Double(correlation[best + 1])
            let denominator = a - 2 * b + c
            if denominator < 0 { offset = max(-0.5, min(0.5, 0.5 * (a - c) / denominator)) }
        }
        let raw = (Double(best) + offset) * Double(blockLength)
        latestSamples = raw
        // Four raw estimates a second of far-end activity (updates come every 25 blocks, 50 ms) steer the tracker.
        acceptedSinceTracked += 1
        if tracker.median == nil || acceptedSinceTracked >= 5 {
            acceptedSinceTracked = 0
            tracker.add(raw)
            drift.add(seconds: Double(blocksProcessed) * Double(blockLength) / Double(sampleRate),
                      delay: raw / Double(sampleRate))
        }
    }
}
