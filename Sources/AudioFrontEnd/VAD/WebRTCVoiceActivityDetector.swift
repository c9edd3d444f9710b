import CAudioShims

/// Voice activity detection by WebRTC's VAD (a Gaussian-mixture model over six sub-bands), through the public
/// `voice_detection()` component of `webrtc::AudioProcessing` (webrtc-audio-processing 0.3).
///
/// The detector owns an AudioProcessing instance (through the internal `WebRTCAudioProcessor`) with only the VAD
/// enabled (no echo control, noise suppression or high-pass filter), feeds it a scratch copy of each frame and
/// reads `stream_has_voice()`. At 32 and 48 kHz the VAD looks at the 0–8 kHz band. Rates 8000, 16000, 32000 and
/// 48000 Hz. In a `FrontEnd` whose echo canceller is WebRTC's, the VAD runs inside the canceller's instance
/// instead (same likelihood, same frames: the canceller's and noise suppressor's output).
///
/// Lifecycle: create (allocates) → ``process(_:)`` (real-time safe) → ``reset()`` → deinit (frees the instance).
/// Invariant behind `@unchecked Sendable`: the C instance and the scratch buffer are used by one thread at a time;
/// the object may move between threads between calls, never be used by two at once.
public final class WebRTCVoiceActivityDetector: VoiceActivityDetector, @unchecked Sendable {
    /// How readily WebRTC's VAD declares voice: `VoiceDetection::Likelihood`.
    ///
    /// A higher likelihood clips less speech and lets more noise through (`kHighLikelihood` runs the VAD in its
    /// quality mode 0; `kVeryLowLikelihood` in its very aggressive mode 3).
    public enum Likelihood: Int32, CaseIterable, Hashable, Sendable {
        /// `kVeryLowLikelihood`: the fewest false alarms, the most clipped speech.
        case veryLow = 0
        /// `kLowLikelihood`.
        case low = 1
        /// `kModerateLikelihood`.
        case moderate = 2
        /// `kHighLikelihood`: the least clipped speech, the most noise taken for speech.
        case high = 3

        /// The likelihood for NUI's `speech_noise_threshold`, in four bands:
        /// -1 up to -0.5 → ``high``, -0.5 up to 0 → ``moderate``, 0 up to 0.5 → ``low``, 0.5...1 → ``veryLow``
        /// (each band includes its lower end). The neutral value 0 therefore gives the default, ``low``.
        public init(_ threshold: SpeechNoiseThreshold) {
            switch threshold.value {
            case ..<(-0.5): self = .high
            case ..<0: self = .moderate
            case ..<0.5: self = .low
            default: self = .veryLow
            }
        }
    }

    /// Settings of ``WebRTCVoiceActivityDetector``.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate in Hz: 8000, 16000, 32000 or 48000. Default 16000.
        public var sampleRate: Int = 16000
        /// The VAD's likelihood. Default ``Likelihood/low``: the best frame F1 measured over speech in noise
        /// (higher likelihoods take babble for speech; ``Likelihood/veryLow`` clips quiet speech).
        public var likelihood: Likelihood = .low

        /// The defaults at `sampleRate`, with `likelihood` (default ``Likelihood/low``).
        public init(sampleRate: Int = 16000, likelihood: Likelihood = .low) {
            self.sampleRate = sampleRate
            self.likelihood = likelihood
        }

        /// The likelihood for NUI's `speech_noise_threshold`; see ``Likelihood/init(_:)``.
        public init(sampleRate: Int = 16000, speechNoiseThreshold: SpeechNoiseThreshold) {
            self.init(sampleRate: sampleRate, likelihood: Likelihood(speechNoiseThreshold))
        }
    }

    public let configuration: Configuration
    public let sampleRate: Int
    public let frameLength: Int
    public private(set) var isSpeech = false

    private let processor: WebRTCAudioProcessor
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Creates the AudioProcessing instance with only the VAD enabled. Allocates.
    ///
    /// The corresponding C functions are `afe_apm_config_init` and `afe_apm_create` (our shim over
    /// `webrtc::AudioProcessing::Create` and `VoiceDetection::set_likelihood`).
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate WebRTC does not run at natively;
    ///   ``AudioFrontEndError/Code/libraryFailure`` with the library's status when creation fails.
    public init(_ configuration: Configuration = Configuration()) throws {
        var config = WebRTCAudioProcessor.defaultConfiguration(sampleRate: configuration.sampleRate)
        config.echo_mode = Int32(AFE_APM_ECHO_OFF)
        config.noise_suppression = -1
        config.high_pass_filter = 0
        config.metrics = 0
        config.vad_likelihood = configuration.likelihood.rawValue
        processor = try WebRTCAudioProcessor(configuration: config, component: "WebRTC VAD")
        self.configuration = configuration
        sampleRate = configuration.sampleRate
        frameLength = processor.frameLength
        scratch = .zeroed(capacity: frameLength)
    }

    deinit { scratch.deallocate() }

    /// Classifies one frame; the decision is then in ``isSpeech``. The frame itself is not changed.
    ///
    /// Real-time safe: copies into preallocated scratch; no allocation or locks. One thread at a time.
    /// The corresponding C functions are `afe_apm_process_capture` (`AudioProcessing::ProcessStream`) and
    /// `afe_apm_stream_has_voice` (`VoiceDetection::stream_has_voice`).
    /// - Returns: ``StageStatus/ok``, ``StageStatus/wrongFrameLength``, or the library's status (then
    ///   ``isSpeech`` is false).
    public func process(_ frame: UnsafeBufferPointer<Int16>) -> StageStatus {
        guard frame.count == frameLength, let source = frame.baseAddress, let target = scratch.baseAddress else {
            return .wrongFrameLength
        }
        target.update(from: source, count: frameLength)
        let status = processor.processCapture(scratch, streamDelayMilliseconds: 0)
        guard status == 0 else {
            isSpeech = false
            return StageStatus(code: status)
        }
        isSpeech = processor.hasVoice
        return .ok
    }

    /// Clears the VAD's state and keeps the settings. Not real-time safe (re-initializes the instance).
    ///
    /// The corresponding C function is `afe_apm_reset` (`AudioProcessing::Initialize`).
    public func reset() {
        processor.reset()
        isSpeech = false
    }
}
