/// Whether the output speaks at the reference's pitch (``FrontEndConfiguration/BargeIn/pitchMatchLimit``): the
/// voicing and pitch lag of the last 40 ms of the cancellers' output and of the aligned reference
/// (``VoicingMeter``, below 1 kHz). A loudspeaker that distorts leaves a residual the linear cancellers cannot
/// remove and the linear coherence (``BargeInCoherence``) does not see, but a memoryless distortion keeps the
/// period of what it distorts: the residual is voiced at the reference's pitch. A talker has a pitch of their own.
/// Tuning material (scenes' own `echo.wav` / `near.wav` against the aligned reference, frames voiced in both;
/// measured with the meters' highest correlation as the period, before ``VoicingMeter/fundamentalLag(tolerance:)``):
/// the echo at the reference's pitch in 81-96 % of them (soft clipping, small loudspeaker, RT60 0.9 s, double talk),
/// a talker in 11-25 % (chance and octaves).
///
/// Created on the control thread (allocates); ``update(output:reference:)`` runs on the processing thread and is
/// real-time safe.
final class BargeInPitch {
    /// A frame's verdict: both signals voiced, and whether at the same pitch (or an octave apart).
    struct Frame {
        var voiced = false
        var matched = false
    }

    /// Periodicity (``VoicingMeter/periodicity()``) both need to count as voiced.
    static let voicedPeriodicity: Float = 0.6
    private let output: VoicingMeter
    private let reference: VoicingMeter

    init(sampleRate: Int) {
        output = VoicingMeter(sampleRate: sampleRate, cutoffHz: 1000)
        reference = VoicingMeter(sampleRate: sampleRate, cutoffHz: 1000)
    }

    /// Takes the frame's output and aligned reference; `analyse`: judge the frame (the meters keep their last
    /// 40 ms either way). Real-time safe.
    func update(output frameOutput: UnsafeBufferPointer<Int16>, reference frameReference: UnsafeBufferPointer<Int16>,
                analyse: Bool) -> Frame {
        for sample in frameOutput { output.add(Double(sample) / 32768) }
        for sample in frameReference { reference.add(Double(sample) / 32768) }
        guard analyse, reference.periodicity() >= Self.voicedPeriodicity,
              output.periodicity() >= Self.voicedPeriodicity else { return Frame() }
        return Frame(voiced: true, matched: Self.samePitch(output.fundamentalLag(), reference.fundamentalLag()))
    }

    /// Periods within 4 % of the longer (at least one sample), or the longer within that of twice the shorter (an
    /// octave: a voice's period doubling, or a period the meter missed). Symmetric in its arguments.
    static func samePitch(_ a: Int, _ b: Int) -> Bool {
        guard a > 0, b > 0 else { return false }
        let (shorter, longer) = (min(a, b), max(a, b))
        let tolerance = max(1, Float(longer) * 0.04)
        return Float(longer - shorter) <= tolerance || abs(Float(longer - 2 * shorter)) <= tolerance
    }
}
