#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides when a converged speex MDF filter has lost the echo path (the device moved): its output
/// (the mic minus the filter's echo estimate, before the preprocessor) is louder than the mic itself while the
/// far end plays. A filter that is right, or merely out of date, only ever removes energy; near-end speech
/// adds to mic and output alike. A filter of the old path subtracts an echo that is no longer there, so the
/// output carries the new echo and the old estimate both (up to 3 dB above the mic). speex MDF re-adapts from
/// the old filter at the slow rate its leak estimate allows (about 17 -> 1 dB of reduction for seconds on the
/// scenario matrix's `path_moved`); cleared, it adapts at its initial rate. A door opened changes only the late
/// reverberation: the filter keeps most of its reduction there and is left to adapt.
///
/// Chosen on the scenario matrix's tuning half (`path_moved`, `path_door`, and 8 more path-change scenes drawn from
/// the tuning half's pools with other seeds): 0 dB for 5 frames, with an echo estimate within 6 dB of the mic and
/// a converged reduction of 6 dB. It fires in none of the tuning half's 23 echo, music, nonlinear, drift,
/// double-talk and rate scenes; -1 dB also fired once in `drift_m100`.
///
/// Internal to ``SpeexEchoCanceller``. No allocation; ``observe(mic:error:estimate:referenceActive:)`` is real-time
/// safe. One thread at a time.
struct SpeexDivergenceWatch {
    /// How far (dB) the output's short-term power must stand above the mic's.
    let limitDecibels: Float
    /// Frames in a row the output must stand above the limit.
    let frames: Int
    /// Reduction (dB, mic over output, over about a second of playback) the filter must have reached first.
    static let convergedDecibels: Float = 6
    /// Frames of playback the filter must have run since it was created or cleared.
    static let settleFrames = 100
    /// Smoothing of the short-term powers (about 50 ms) and of the long-term ones (about 1 s), per frame.
    private static let fast: Float = 0.2
    private static let slow: Float = 0.01
    /// A frame quieter than this (mean square of Int16 samples, -70 dBFS) carries no evidence.
    private static let floor: Float = 32768 * 32768 * 1e-7

    private let limit: Float
    private static let converged = power(convergedDecibels)
    private static func power(_ decibels: Float) -> Float { powf(10, decibels / 10) }
    /// The filter's echo estimate (mic minus output) must be at least this loud against the mic (dB): an
    /// output above the mic by an estimate far below it is noise on a near-silent filter, no lost path.
    static let estimateDecibels: Float = -6
    private static let estimateShare = power(estimateDecibels)
    private var fastMic: Float = 0
    private var fastEstimate: Float = 0
    private var fastError: Float = 0
    private var slowMic: Float = 0
    private var slowError: Float = 0
    private var playing = 0
    private var run = 0
    /// Times the filter was found diverged.
    private(set) var count = 0

    init(limitDecibels: Float, frames: Int) {
        self.limitDecibels = limitDecibels
        self.frames = max(1, frames)
        limit = Self.power(limitDecibels)
    }

    mutating func reset() {
        fastMic = 0
        fastError = 0
        fastEstimate = 0
        slowMic = 0
        slowError = 0
        playing = 0
        run = 0
    }

    /// Counts one frame: the mean squares of the mic, of the filter's output and of its echo estimate. Returns true when the filter
    /// should be cleared (the watch then starts over).
    mutating func observe(mic: Float, error: Float, estimate: Float, referenceActive: Bool) -> Bool {
        guard referenceActive, mic > Self.floor else {
            run = 0
            return false
        }
        fastMic += Self.fast * (mic - fastMic)
        fastError += Self.fast * (error - fastError)
        fastEstimate += Self.fast * (estimate - fastEstimate)
        playing += 1
        let above = fastError > fastMic * limit && fastEstimate >= fastMic * Self.estimateShare
        run = above ? run + 1 : 0
        // The long-term reduction stands for the filter before the divergence: frames above the limit are
        // left out of it.
        if !above {
            slowMic += Self.slow * (mic - slowMic)
            slowError += Self.slow * (error - slowError)
        }
        guard run >= frames, playing >= Self.settleFrames,
              slowMic > slowError * Self.converged else { return false }
        count += 1
        reset()
        return true
    }
}
