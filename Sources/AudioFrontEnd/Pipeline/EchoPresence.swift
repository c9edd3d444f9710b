#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the mic holds an echo of the reference at all (``DelayEstimator/findsNoEcho``): headphones, a muted or
/// distant loudspeaker, an echo under the room's noise, or a loudspeaker unplugged while it played.
///
/// Method: beside the delay estimator's accumulated cross-spectrum, a second one with a short memory (1 s, the
/// estimator's ``DelayEstimator/challengeMemorySeconds``) in which **every window weighs alike**: its mic × reference
/// product is divided by the square root of the two windows' energies before it is added. The phase-transformed
/// correlation of that spectrum peaks, over its mean, only while the last second's windows hold an echo. Why a
/// spectrum of its own: in the estimator's spectra a window weighs by its level, so after a loud echo went away
/// the quiet windows that follow (the room's noise, the user) could not outweigh what the loud ones had left: the
/// 4 s spectrum kept its peak about 14 s, the 1 s one 3-8 s (19 scenes of the tuning half with their echo taken
/// out at 10 s); weighed alike, 2.9-4.5 s.
///
/// The threshold and the counts were chosen on the scenario matrix's tuning half and its extra renderings
/// (session 29): without an echo (10 near-end-only mics x 10 references) the statistic stays at or under 9.8 from
/// the 20th update on (chance peaks of a spectrum of few windows reach 28 at the 1st update, 16 at the 5th); with
/// one (93 echo, double-talk, path-change, drift and rate scenes) the highest of any 4 updates in a row from the
/// 20th stands at 16.5 or more (`dt_ser5`, the talker over the echo). Real-time safe after creation; the
/// processing thread.
final class EchoPresence {
    /// The level-weighted short-memory cross-spectrum, bins 0...N/2 (see the type's description).
    let real: UnsafeMutableBufferPointer<Float>
    let imaginary: UnsafeMutableBufferPointer<Float>
    /// Peak over mean the statistic must reach for an update to hold an echo: between the no-echo pairs' 9.8 and
    /// the echoes' 16.5, nearer the former (an echo found for nothing opens the gate to the device's own voice).
    static let threshold: Float = 12
    /// Updates before a verdict (about 2.6 s of reference: the first updates' chance peaks), and the updates in a
    /// row without an echo it needs (0.5 s at the first updates' pace, 1 s once the estimator has settled).
    static let afterUpdates = 20
    static let runUpdates = 4
    /// Updates so far (windows with enough reference) and how many of the last in a row held no echo.
    private(set) var updates = 0
    private(set) var unconfidentRun = 0
    /// The statistic at the last update, or 0 before ``needsStatistic``.
    private(set) var confidence: Float = 0

    init(bins: Int) {
        real = .zeroed(capacity: bins)
        imaginary = .zeroed(capacity: bins)
    }

    deinit {
        real.deallocate()
        imaginary.deallocate()
    }

    /// The mic holds no echo of the reference at any lag: after ``afterUpdates`` updates, the last ``runUpdates``
    /// stayed under ``threshold``. When an echo comes (or comes back), the first update that holds it ends the
    /// verdict.
    var findsNoEcho: Bool { updates >= Self.afterUpdates && unconfidentRun >= Self.runUpdates }

    /// Whether the next update's statistic can count toward a verdict (the owner skips the correlation before).
    var needsStatistic: Bool { updates + 1 + Self.runUpdates > Self.afterUpdates }

    /// The weight of a window's product: 1 / sqrt(mic energy × reference energy); 0 for a window of exact zeros
    /// (see ``clear()``).
    static func weight(micEnergy: Float, referenceEnergy: Float) -> Float {
        micEnergy > 0 && referenceEnergy > 0 ? 1 / sqrtf(micEnergy * referenceEnergy) : 0
    }

    /// Empties the spectrum (not the counts): a mic window of exact zeros (a muted or disconnected microphone)
    /// holds no echo, whatever the spectrum remembers, and a spectrum left to decay over it would reach subnormal
    /// floats (slow on x86) after about a minute and a half. Real-time safe.
    func clear() {
        real.update(repeating: 0)
        imaginary.update(repeating: 0)
    }

    /// Takes one update: `confidence` is the statistic's peak over mean, nil when it was not computed
    /// (``needsStatistic`` false).
    func record(confidence value: Float?) {
        updates += 1
        confidence = value ?? 0
        guard let value else { return }
        unconfidentRun = value < Self.threshold ? unconfidentRun + 1 : 0
    }

    func reset() {
        clear()
        updates = 0
        unconfidentRun = 0
        confidence = 0
    }
}
