/// Decides for each 10 ms frame whether it holds speech.
///
/// Lifecycle: create (may throw) → ``process(_:)`` (real-time safe) → ``reset()``. One thread at a time.
/// Backends: ``WebRTCVoiceActivityDetector`` and ``EnergyVoiceActivityDetector``. ``SpeechSegmenter`` turns the
/// frame decisions into speech start and end events.
public protocol VoiceActivityDetector: AnyObject {
    var sampleRate: Int { get }
    var frameLength: Int { get }
    /// Classifies `frame` (exactly ``frameLength`` samples); the decision is then in ``isSpeech``. Real-time safe.
    func process(_ frame: UnsafeBufferPointer<Int16>) -> StageStatus
    /// The decision for the last frame processed.
    var isSpeech: Bool { get }
    /// Forgets history. Not real-time safe.
    func reset()
}
