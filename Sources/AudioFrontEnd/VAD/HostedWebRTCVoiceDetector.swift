/// The WebRTC VAD run inside the echo canceller's `AudioProcessing` (``WebRTCEchoCanceller`` created with a
/// hosted VAD): the library classifies the capture frame after echo cancellation and noise suppression within the
/// same `ProcessStream`, so this detector only reads that verdict instead of re-splitting the bands in an
/// instance of its own (``WebRTCVoiceActivityDetector``).
///
/// ``process(_:)`` must be given the frame the host produced in its latest `ProcessStream` (the front end's
/// chain runs the host on every frame, cancelling or idling on a silent reference). Real-time safe; processing
/// thread only, like the host.
final class HostedWebRTCVoiceDetector: VoiceActivityDetector {
    private let host: WebRTCEchoCanceller
    let sampleRate: Int
    let frameLength: Int
    private(set) var isSpeech = false

    init(host: WebRTCEchoCanceller) {
        self.host = host
        sampleRate = host.sampleRate
        frameLength = host.frameLength
    }

    /// Reads the host's verdict on its latest frame, which is `frame`. Real-time safe.
    func process(_ frame: UnsafeBufferPointer<Int16>) -> StageStatus {
        guard frame.count == frameLength else { return .wrongFrameLength }
        isSpeech = host.hasVoice
        return .ok
    }

    /// The VAD's state belongs to the host; only the last verdict is cleared here.
    func reset() { isSpeech = false }
}
