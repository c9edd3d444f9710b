/// NUI's `speech_noise_threshold`: how readily voice activity detection calls a sound speech, in -1...1.
///
/// -1 is the most sensitive setting (noise is more likely to be taken for speech), +1 the least sensitive
/// (speech is more likely to be taken for noise), 0 is the backend's default. NUI recommends steps of 0.1.
/// Each backend maps the value onto its own knob:
/// - ``EnergyVoiceActivityDetector``: the margin over the noise estimate,
///   `thresholdDecibels = 4 + 2 × value` (2 dB at -1, 6 dB at +1); see
///   ``EnergyVoiceActivityDetector/Configuration/init(sampleRate:speechNoiseThreshold:)``.
/// - ``WebRTCVoiceActivityDetector``: the likelihood, in four bands of the value; see
///   ``WebRTCVoiceActivityDetector/Likelihood/init(_:)``.
///
/// A plain value; any thread.
public struct SpeechNoiseThreshold: Hashable, Sendable, CustomStringConvertible {
    /// The value, in -1...1.
    public let value: Float

    /// The backend defaults (NUI's "unset").
    public static let neutral = SpeechNoiseThreshold(checked: 0)
    /// The most sensitive setting: the fewest missed words, the most noise let through.
    public static let mostSensitive = SpeechNoiseThreshold(checked: -1)
    /// The least sensitive setting: the least noise let through, the most missed words.
    public static let leastSensitive = SpeechNoiseThreshold(checked: 1)

    /// Checks and wraps a `speech_noise_threshold`.
    /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` when `value` is outside -1...1 or not a number.
    public init(_ value: Float) throws {
        guard value >= -1, value <= 1 else { // false for NaN too
            throw AudioFrontEndError(.invalidConfiguration, "speech_noise_threshold must be in -1...1, not \(value)")
        }
        self.value = value
    }

    private init(checked value: Float) { self.value = value }

    public var description: String { "speech_noise_threshold \(value)" }
}
