/// Everything a ``FrontEnd`` needs to know before it starts. A value type: build it on any thread.
///
/// The defaults are the chain tuned for ASR while the device plays (barge-in): see ``EchoCancellation``.
/// Stage configurations carry their own `sampleRate`; the front end overrides it with ``processingRate``.
public struct FrontEndConfiguration: Sendable, Equatable {
    /// How a microphone or reference stream arrives.
    public struct InputFormat: Sendable, Equatable {
        /// Hz. Mic: 16000...48000 (44100 included), or 8000 with echo cancellation and VAD off.
        public var sampleRate: Int
        /// Interleaved channels in each push.
        public var channelCount: Int
        /// Which channel is used when there are several.
        public var channelSelection: ChannelSelection

        public init(sampleRate: Int, channelCount: Int = 1, channelSelection: ChannelSelection = .downmix) {
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.channelSelection = channelSelection
        }
    }

    /// How a multi-channel input becomes mono.
    public enum ChannelSelection: Sendable, Equatable {
        /// The mean of all channels.
        case downmix
        /// One channel, 0-based.
        case channel(Int)
    }

    /// The echo canceller and its settings.
    public enum EchoCancellation: Sendable, Equatable {
        case off
        /// WebRTC AEC2 (or AECM with `mode: .mobile`).
        case webRTC(WebRTCEchoCanceller.Configuration)
        /// Speex MDF, optionally with its residual-echo suppressor.
        case speex(SpeexEchoCanceller.Configuration)
        /// Speex MDF (linear, keeps the near-end talker), then WebRTC AEC2 on its output for the residual.
        case speexThenWebRTC(SpeexEchoCanceller.Configuration, WebRTCEchoCanceller.Configuration)
    }

    /// Who knows the delay between the reference and its echo.
    public enum Alignment: Sendable, Equatable {
        /// The front end estimates it continuously (up to `maximumDelayMilliseconds`) and shifts the reference.
        case automatic(maximumDelayMilliseconds: Int)
        /// The app knows it: the reference is shifted by this many milliseconds.
        case fixed(milliseconds: Int)
    }

    /// The noise suppressor.
    public enum NoiseSuppression: Sendable, Equatable {
        case off
        case webRTC(WebRTCNoiseSuppressor.Configuration)
        case speex(SpeexNoiseSuppressor.Configuration)
    }

    /// The voice activity detector's backend.
    public enum VoiceDetector: Sendable, Equatable {
        case webRTC(WebRTCVoiceActivityDetector.Configuration)
        case energy(EnergyVoiceActivityDetector.Configuration)
    }

    /// Voice activity detection on the processed audio, and how frame decisions become speech segments.
    public struct VoiceDetection: Sendable, Equatable {
        public var detector: VoiceDetector
        /// Onset, end silence (NUI's `max_sentence_silence`, 200...6000 ms) and maximum segment length.
        /// Default: the segmenter's defaults with a 130 ms onset (instead of 100 ms): on the 48 kHz echo vectors a
        /// 110 ms burst of residual echo while the canceller still converges started a segment at 100 ms; at
        /// 150 ms the first double-talk start came 150 ms late.
        public var segmenter: SpeechSegmenter.Configuration
        /// Keeps residual echo from counting as speech while the far end plays. Default: ``EchoGate/init()``.
        public var echoGate: EchoGate
        /// A longer onset in fluctuating noise (energy detector only, outside playback); nil keeps the
        /// segmenter's onset. Default: ``FluctuatingNoiseOnset/init(deviationDecibels:millisecondsPerDecibel:maximumMilliseconds:)``.
        public var fluctuatingNoiseOnset: FluctuatingNoiseOnset?

        public init(detector: VoiceDetector = .energy(VoiceDetection.defaultEnergyDetector),
                    segmenter: SpeechSegmenter.Configuration = SpeechSegmenter.Configuration(onsetMilliseconds: 130),
                    echoGate: EchoGate = EchoGate(),
                    fluctuatingNoiseOnset: FluctuatingNoiseOnset? = FluctuatingNoiseOnset()) {
            self.detector = detector
            self.segmenter = segmenter
            self.echoGate = echoGate
            self.fluctuatingNoiseOnset = fluctuatingNoiseOnset
        }

        /// The energy detector's defaults with a 50 ms hangover instead of 100 ms: the segmenter back-dates a
        /// speech end to the last speech frame, hangover included, and the longer hangover put the ends on the
        /// double-talk vector 110-120 ms after the labels (50 ms: within 100 ms). Gaps inside a segment are
        /// bridged by the segmenter's end silence anyway. And a 5 dB margin over the noise instead of 4 dB, chosen
        /// on the scenario matrix's tuning half (Scripts/scenarios, `--half tune`): segment F1 in babble at 10 dB
        /// SNR 0.80 -> 0.87, street 0.86 -> 0.89, kitchen 0.90 -> 0.92, pink at 0 dB 0.943 -> 0.938 (6 dB: 0.84).
        public static var defaultEnergyDetector: EnergyVoiceActivityDetector.Configuration {
            var c = EnergyVoiceActivityDetector.Configuration()
            c.hangoverMilliseconds = 50
            c.thresholdDecibels = 5
            return c
        }
    }

    /// Opus encoding of the processed audio (at the processing rate), optionally in an Ogg Opus stream.
    public struct Encoding: Sendable, Equatable {
        /// The encoder; its `sampleRate` is set to the processing rate. Packets of 10, 20, 40 or 60 ms.
        public var opus: Opus.Encoder.Configuration
        /// When set, the packets are also written as Ogg Opus pages (``FrontEndEvent/oggPage(_:)``).
        public var ogg: OggOpusWriter.Configuration?

        public init(opus: Opus.Encoder.Configuration = Opus.Encoder.Configuration(),
                    ogg: OggOpusWriter.Configuration? = OggOpusWriter.Configuration()) {
            self.opus = opus
            self.ogg = ogg
        }
    }

    /// The microphone stream. Default: 16 kHz mono.
    public var mic = InputFormat(sampleRate: 16000)
    /// The reference (what the device plays) stream; its own rate. Default: 16 kHz mono.
    public var reference = InputFormat(sampleRate: 16000)
    /// Rate the echo canceller, noise suppressor and VAD work at: 16000 (default) or 48000. 8000 is accepted
    /// only with echo cancellation and VAD off.
    public var processingRate = 16000
    /// Rate of the processed audio delivered in ``FrontEndEvent/audio(_:)``; nil means ``processingRate``.
    public var outputRate: Int?
    /// The echo canceller. Default: ``defaultEchoCancellation``.
    public var echoCancellation: EchoCancellation = FrontEndConfiguration.defaultEchoCancellation
    /// Default: automatic up to 1000 ms.
    public var alignment = Alignment.automatic(maximumDelayMilliseconds: 1000)
    /// Default: off (ASR services train on unsuppressed speech; turn it on for noisy devices).
    public var noiseSuppression = NoiseSuppression.off
    /// Voice activity detection; nil turns it off. Default: the energy detector (best F1 on the noisy vectors) with the segmenter's defaults.
    public var voiceDetection: VoiceDetection? = VoiceDetection()
    /// Opus encoding; nil (the default) turns it off.
    public var encoding: Encoding?
    /// How much mic audio the front end holds when its event consumer falls behind, ms. Default 2000.
    public var micBufferMilliseconds = 2000
    /// How much reference history is kept for alignment and late reference, ms (at least 1000). Default 3500:
    /// when the event consumer falls behind, mic frames wait in the mic buffer (up to ``micBufferMilliseconds``)
    /// while the reference keeps arriving, and the reference those frames need (up to the largest echo delay,
    /// 1000 ms by default, before them) must still be there when they are processed.
    public var referenceWindowMilliseconds = 3500
    /// How long the echo canceller keeps running after `playOver` for the room's tail, ms. Default 600.
    public var echoTailAfterPlaybackMilliseconds = 600

    public init() {}

    /// The chain tuned for ASR under playback (barge-in), chosen by measurement through the front end on the
    /// test vectors (room with RT60 0.25 s, no delay given; see `ChainSweepTests`):
    /// speex MDF (128 ms tail) with its residual-echo suppressor set mild while the near end talks (-5 dB) and
    /// -20 dB otherwise, then WebRTC AEC2 at low suppression with the 48 ms filter for what the linear filter
    /// leaves (onsets after pauses, unconverged bands). Measured at 16 kHz: double talk at SER 0 dB keeps the
    /// talker (magnitude SDR 10 dB over the double-talk spans) and removes far-end-only echo by 31 dB; the worst
    /// one-second ERLE from 3 s after the first echo is 29.9-34.9 dB at delays 0-400 ms. AEC2 alone removes the echo
    /// but deletes the talker in double talk (SDR about 1 dB); speex alone keeps the talker but leaves echo
    /// onsets (worst second 13-22 dB). The stages' latency (speex preprocessor one frame + AEC2 112 samples at
    /// 16 kHz) is compensated by the front end.
    public static var defaultEchoCancellation: EchoCancellation {
        var speex = SpeexEchoCanceller.Configuration()
        speex.tailMilliseconds = 128
        speex.residualEchoSuppression = true
        speex.echoSuppressDecibels = -20
        speex.echoSuppressActiveDecibels = -5
        var webRTC = WebRTCEchoCanceller.Configuration()
        webRTC.suppressionLevel = .low
        webRTC.extendedFilter = false
        return .speexThenWebRTC(speex, webRTC)
    }

    /// The rate of the delivered audio.
    public var effectiveOutputRate: Int { outputRate ?? processingRate }
}
