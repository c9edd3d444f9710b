import Foundation

/// Ducking: the playback turned down for a moment (a barge-in suspicion, ``BargeInDecision/isSuspicion``) and
/// back up on its own.
extension SynthesisPlayer {
    /// Turns what is handed to the device (and so the reference) down by `decibels` from the next render call
    /// for `milliseconds` of rendered audio, then back up; the gain moves over one render piece at each end. A
    /// call while ducked replaces the depth and extends the duck from now; `milliseconds` 0 ends it. On top of
    /// ``volume``. Any thread; real-time safe (a libm call and two atomic stores).
    /// - Parameters:
    ///   - decibels: 0...90 (clamped).
    ///   - milliseconds: 0...60000 (clamped).
    public func duck(decibels: Float, milliseconds: Int) {
        let depth = decibels.isNaN ? 0 : max(0, min(90, decibels))
        let gain = powf(10, -depth / 20)
        duckGainBits.store(gain.bitPattern, ordering: .relaxed)
        let frames = max(0, min(60_000, milliseconds)) * configuration.sampleRate / 1000
        duckUntilFrame.store(renderedFrames.load(ordering: .relaxed) + frames, ordering: .relaxed)
    }

    /// Whether a duck applies at the next render call. Any thread.
    public var isDucked: Bool { renderedFrames.load(ordering: .relaxed) < duckUntilFrame.load(ordering: .relaxed) }
}
