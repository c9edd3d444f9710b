/// Runs, once per process at set-up, the real-time path's code that uses generic standard-library types (the
/// SIMD vectors of ``LevelMeter`` and ``BargeInCoherence``), so the Swift runtime instantiates their metadata and
/// witness tables before any audio thread needs them.
///
/// Why: the runtime builds a generic type's metadata the first time code asks for it, and that allocates (and
/// takes the runtime's lock). Unspecialized generic code (debug builds, and any call the optimizer leaves
/// generic) asks for it on first use, so a stage first reached late in a session (the delay estimator's
/// path-change challenge, the barge-in coherence once the far end plays) allocated once on the audio thread
/// (`RealTimeSafetyTests` counted 12 with session 34's delay-estimator edge margin, which moved those first uses
/// past the test's warm-up). The real-time path otherwise avoids generic helpers (`stride`, `Collection`-generic
/// `update(fromContentsOf:)`): plain loops and pointer copies.
enum RuntimeWarmUp {
    /// Touching this runs the warm-up once (the first caller's thread; thread-safe). Control thread; allocates.
    static let done: Bool = {
        let zeros = [Int16](repeating: 0, count: 480), floats = [Float](repeating: 0, count: 480)
        var level = zeros.withUnsafeBufferPointer { LevelMeter.rmsDecibels($0) }
        level += floats.withUnsafeBufferPointer { LevelMeter.rmsDecibels($0) }
        let coherence = BargeInCoherence(sampleRate: 16000, frameLength: 160)
        zeros.withUnsafeBufferPointer { frame in
            let tenMilliseconds = UnsafeBufferPointer(rebasing: frame[0..<160])
            level += coherence.update(output: tenMilliseconds, reference: tenMilliseconds)
        }
        return level.isFinite
    }()
}
