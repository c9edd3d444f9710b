/// How much a barge-in test's frames look like the echo, since the test's first frame: the output's coherence with
/// the reference (``BargeInCoherence``) summed over every frame, and the frames voiced in both the output and the
/// reference with those of them at the same pitch (``BargeInPitch``). A test that looks like the echo decides
/// nothing (``FrontEndConfiguration/BargeIn/coherenceLimit``, ``FrontEndConfiguration/BargeIn/pitchMatchLimit``).
///
/// Real-time safe (a value type); processing thread.
struct BargeInEchoLikeness {
    private var coherence: Float = 0
    private var frames = 0
    private var voiced = 0
    private var matched = 0
    /// Voiced frames a test needs before the pitch veto applies.
    static let pitchMinimumFrames = 5

    /// Takes one frame of the test.
    mutating func add(coherence frameCoherence: Float, pitch: BargeInPitch.Frame) {
        coherence += frameCoherence
        frames += 1
        guard pitch.voiced else { return }
        voiced += 1
        if pitch.matched { matched += 1 }
    }

    /// Whether the frames so far follow the reference: their mean coherence above the limit, or their voiced
    /// frames at the reference's pitch more often than the limit allows (each check off at 0).
    func followsReference(_ settings: FrontEndConfiguration.BargeIn) -> Bool {
        (settings.coherenceLimit > 0 && coherence > settings.coherenceLimit * Float(frames))
            || (settings.pitchMatchLimit > 0 && voiced >= Self.pitchMinimumFrames
                && Float(matched) > settings.pitchMatchLimit * Float(voiced))
    }
}
