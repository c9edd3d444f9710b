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
        /// Segment starts and ends found with a lower threshold outside playback (energy detector only); nil:
        /// at the detector's first and last speech frames. Default: ``SpeechEdges/init(marginDecibels:maximumLeadMilliseconds:maximumTrailMilliseconds:maximumGapMilliseconds:maximumNoiseDeviationDecibels:peakRangeDecibels:)``.
        public var speechEdges: SpeechEdges?

        public init(detector: VoiceDetector = .energy(VoiceDetection.defaultEnergyDetector),
                    segmenter: SpeechSegmenter.Configuration = SpeechSegmenter.Configuration(onsetMilliseconds: 130),
                    echoGate: EchoGate = EchoGate(),
                    fluctuatingNoiseOnset: FluctuatingNoiseOnset? = FluctuatingNoiseOnset(),
                    speechEdges: SpeechEdges? = SpeechEdges()) {
            self.detector = detector
            self.segmenter = segmenter
            self.echoGate = echoGate
            self.fluctuatingNoiseOnset = fluctuatingNoiseOnset
            self.speechEdges = speechEdges
        }

        /// The energy detector's defaults with a 50 ms hangover instead of 100 ms: the segmenter back-dates a
        /// speech end to the last speech frame, hangover included, and the longer hangover put the ends on the
        /// double-talk vector 110-120 ms after the labels (50 ms: within 100 ms). Gaps inside a segment are
        /// bridged by the segmenter's end silence anyway. And a 5 dB margin over the noise instead of 4 dB, chosen
        /// on the scenario matrix's tuning half (Scripts/scenarios, `--half tune`): segment F1 in babble at 10 dB
        /// SNR 0.80 -> 0.87, street 0.86 -> 0.89, kitchen 0.90 -> 0.92, pink at 0 dB 0.943 -> 0.938 (6 dB: 0.84).
        /// And the voicing rule outside playback (``quietVoicing``).
        public static var defaultEnergyDetector: EnergyVoiceActivityDetector.Configuration {
            var c = EnergyVoiceActivityDetector.Configuration()
            c.hangoverMilliseconds = 50
            c.thresholdDecibels = 5
            c.voicing = quietVoicing
            return c
        }

        /// The voicing rule's defaults (``EnergyVoiceActivityDetector/Configuration/Voicing``), off while the far
        /// end plays: voiced frames in steady, pitch-less noise need 1 dB over the noise instead of the full margin
        /// when no playback is on. Chosen on the scenario matrix's tuning half (2026-12-05; `--half tune
        /// --vad-only` with 20 hard echo-only, 14 double-talk and 16 VAD-in-noise renderings from its pools):
        /// pink 0 dB F1 (9 scenes) 0.84 -> 0.93, onsets within 150 ms 0.59 -> 0.70; babble, echo-only and
        /// double-talk scenes unchanged (the rule applied during playback too cost double-talk onsets 0.69 -> 0.66
        /// and 3 false starts in 21 min); `near_kitchen` 0.973 -> 0.969. Test half, run once: pink 0 dB 0.872 ->
        /// 0.921, `near_pink` 0.915 -> 0.938, `near_kitchen` 0.809 -> 0.784, scenes with a far end unchanged.
        public static var quietVoicing: EnergyVoiceActivityDetector.Configuration.Voicing {
            var voicing = EnergyVoiceActivityDetector.Configuration.Voicing()
            voicing.whilePlaying = false
            return voicing
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
    /// The barge-in decision during playback (``FrontEndEvent/bargeIn(_:)``; needs ``voiceDetection``); nil
    /// turns it off. Default: ``BargeIn/init(minimumSpeechMilliseconds:maximumGapMilliseconds:nearToResidualDecibels:echoMarginDecibels:minimumLevelDecibels:micExcessDecibels:reverberationMilliseconds:rearmMilliseconds:)``.
    public var bargeIn: BargeIn? = BargeIn()
    /// A second, looser barge-in decision beside ``bargeIn``: a *suspicion* (``BargeInDecision/isSuspicion``)
    /// that the user may be talking over the playback, on which a playback turns itself down for a moment rather
    /// than stopping (``FrontEndEvent/bargeIn(_:)``; needs ``voiceDetection``). While the answer is ducked the
    /// talker stands that much higher over its echo, so ``bargeIn`` can then decide (and stop) a talker it would
    /// miss under the full-volume echo; a wrong suspicion costs a dip in volume, not the answer. It shares the
    /// band analysis of ``bargeIn`` (its ``BargeIn/bandWeight`` decides whether one runs). nil (the default)
    /// turns it off: on the scenario matrix's tuning material (`Scripts/scenarios/bargein_duck.py`) a suspicion
    /// at ``BargeIn/evidenceOffsetDecibels`` 0 with a 20 dB duck for 1 s found every talker of the tuning half
    /// (0 of 47 missed instead of 3) but ducked 17 times in 30 min of echo-only playback, a cost the app should
    /// choose. ``suggestedBargeInSuspicion`` is that setting. (Measured with the decision's margins of before
    /// session 30, 12 and 10 dB and no warm-up. With session 30's defaults, which the suspicion takes too, the
    /// tuning half gives 0 of 47 missed, stop median 280 ms, 20 dips and 3 false stops per 30 min, all in
    /// `path_moved`, whose ducked echo the measurement only approximates; the suspicion at the old margins does
    /// not change that: the stopping decision's looser margins do. Both at the old margins
    /// (``suggestedBargeInWithSuspicion`` and ``suggestedBargeInSuspicion``): 0 missed, 270 ms, 18 dips, 0 false
    /// stops.)
    public var bargeInSuspicion: BargeIn?
    /// The barge-in decision to run beside ``suggestedBargeInSuspicion`` when the app ducks on it: the defaults
    /// with the margins of before session 30 (``BargeIn/nearToResidualDecibels`` 12, ``BargeIn/echoMarginDecibels``
    /// 10, no ``BargeIn/marginWarmUpMilliseconds``). After a duck the looser default margins stopped the answer
    /// falsely where the echo path changes: tuning half with a 20 dB, 1 s duck (`bargein_duck.py`), 0 false stops
    /// per 30 min of echo-only playback and a 270 ms stop median with these, 3 and 280 ms with the defaults.
    /// The NUI SDK's `barge_in_suspicion` sets both.
    public static var suggestedBargeInWithSuspicion: BargeIn {
        var settings = BargeIn()
        settings.nearToResidualDecibels = 12
        settings.echoMarginDecibels = 10
        settings.marginWarmUpMilliseconds = 0
        return settings
    }
    /// The suspicion setting measured with a 20 dB, 1 s duck (``bargeInSuspicion``): the decision beside it
    /// (``suggestedBargeInWithSuspicion``) with ``BargeIn/evidenceOffsetDecibels`` 0 (each counted frame adds its
    /// whole mic excess to the evidence).
    public static var suggestedBargeInSuspicion: BargeIn {
        var settings = suggestedBargeInWithSuspicion
        settings.evidenceOffsetDecibels = 0
        return settings
    }
    /// Opus encoding; nil (the default) turns it off.
    public var encoding: Encoding?
    /// How much mic audio the front end holds when its event consumer falls behind, ms. Default 2000.
    public var micBufferMilliseconds = 2000
    /// What the processing thread does when the event consumer (the delegate on the drain thread) is so far
    /// behind that a frame's events do not fit in the event rings. Default ``EventsBehind/waitForConsumer``.
    public var whenEventsBehind = EventsBehind.waitForConsumer
    /// How much reference history is kept for alignment and late reference, ms (at least 1000). Default 3500:
    /// when the event consumer falls behind, mic frames wait in the mic buffer (up to ``micBufferMilliseconds``)
    /// while the reference keeps arriving, and the reference those frames need (up to the largest echo delay,
    /// 1000 ms by default, before them) must still be there when they are processed.
    public var referenceWindowMilliseconds = 3500
    /// A broadband residual-echo suppressor after the echo chain, driven by the first canceller's echo estimate
    /// (``LateEchoSuppressor``); nil turns it off. Used only with a canceller that gives an estimate (speex MDF,
    /// alone or first in the chain). It scales the delivered audio only (the VAD, echo gate and barge-in judge the
    /// cancellers' output). Default: off. Tuning half (`evaluate.py --half tune --vad-only`, 16 echo, echo_hard,
    /// drift and path-change scenes; `afe process --late-echo`): its defaults raise mean far-end-only ERLE
    /// 26.1 -> 28.7 dB (living room 22.4 -> 25.6, meeting 28.3 -> 31.5, soft clipping 25.8 -> 28.8, +100 ppm
    /// 23.3 -> 26.2, RT60 0.9 s 20.6 -> 21.2) with the VAD rows unchanged, but double talk loses STOI (SER 0 dB
    /// 0.810 -> 0.742, SER -15...+10 dB 0.01-0.07 lower; PESQ-WB 0.01-0.04 higher except SER -15 dB, -0.07); its
    /// mildest setting tried (-6 dB floor, -3 dB overestimate) gains 0.9 dB and still costs STOI 0.002-0.02.
    public var lateEchoSuppression: LateEchoSuppressor.Configuration?
    /// Stronger echo settings applied only while no near end is likely (issue 12, branch erle22): while the far
    /// end plays and the echo speech gate has seen no near-end evidence (no frame past its margins, no open
    /// speech segment) for ``FarEndOnlyEcho/quietMilliseconds``, the chain's AEC2 runs at
    /// ``FarEndOnlyEcho/suppressionLevel`` with the extended filter as ``FarEndOnlyEcho/extendedFilter`` says,
    /// and (``FarEndOnlyEcho/lateEchoOnly``) the late-echo suppressor acts; the first frame with evidence switches
    /// back (from the next frame on; the gate judges the output ``processingDelay`` late). Switching keeps every
    /// filter's state. Used only with an AEC2 stage (the default chain or `--aec webrtc`). Default nil (off).
    public var farEndOnlyEcho: FarEndOnlyEcho?

    /// See ``farEndOnlyEcho``.
    public struct FarEndOnlyEcho: Sendable, Equatable {
        /// AEC2's suppression level while no near end is likely (nil: as configured). Default high.
        public var suppressionLevel: WebRTCEchoCanceller.Configuration.SuppressionLevel? = .high
        /// AEC2's extended filter while no near end is likely (nil: as configured). Default true.
        public var extendedFilter: Bool? = true
        /// With ``FrontEndConfiguration/lateEchoSuppression`` set: it acts only while no near end is likely
        /// (elsewhere its gain is 1). Default false (it acts as configured).
        public var lateEchoOnly = false
        /// Playback frames without near-end evidence before the stronger settings apply, ms (0...10000).
        /// Default 300.
        public var quietMilliseconds = 300
        /// The echo speech gate keeps the levels it learned under the normal settings while these run (they lower
        /// the output of echo frames; learning there made the normal residual read as speech on return), and they
        /// wait until the gate has converged. Default true.
        public var freezesGate = true
        /// Where the near-end evidence comes from. Default ``Evidence/firstStage``.
        public var evidence = Evidence.firstStage

        /// With a first-stage ``evidence``: the output's gate counts as evidence too (either one switches back).
        /// Default false.
        public var evidenceFromBoth = false

        /// See ``evidence``.
        public enum Evidence: Sendable, Equatable {
            /// The echo speech gate on the chain's output (after AEC2, whose settings switch: a near end that
            /// AEC2's stronger suppression takes down may go unseen).
            case output
            /// A second echo speech gate, with the same settings, on the first canceller's output (the default
            /// chain's speex stage, before AEC2); the output's gate where there is no such stage.
            case firstStage
            /// A frame of the first canceller's output that stands this far (dB) above that gate's running
            /// residual level: quicker than its margins, and more often wrong on echo alone.
            case firstStageLevel(Float)
        }

        public init() {}

        func validate() throws {
            try AudioFrontEndError.check(quietMilliseconds, in: 0...10000, "far-end-only quiet time (ms)")
        }
    }
    /// How long the echo canceller keeps running after `playOver` for the room's tail, ms. Default 600.
    public var echoTailAfterPlaybackMilliseconds = 600
    /// Near-end transparency: while the reference has been silent (≤ −70 dBFS) for longer than the echo can
    /// follow it (``echoTailAfterPlaybackMilliseconds`` after the aligned reference, plus the delay estimate, or
    /// the largest delay before there is one, after the reference as pushed), the mic is delivered as it came in
    /// instead of the cancellers' output (they keep running and adapting). Default true: on the scenario
    /// matrix's tuning half the default chain's near-end-only WER was above the raw mic's with nothing playing.
    /// The noise suppressor, when on, still applies. Not applied when WebRTC NS or the WebRTC VAD run inside a
    /// WebRTC canceller's `AudioProcessing` (the mic would skip their delay and their noise suppression).
    public var nearEndTransparency = true
    /// While the delay estimator (automatic alignment) finds no echo of the reference in the mic
    /// (``DelayEstimator/findsNoEcho``: headphones, a muted or distant loudspeaker, one unplugged while it played),
    /// the cancellers pause as they do without playback and the mic goes on to the noise suppressor as it came.
    /// Why: after an echo went away the cancellers went on subtracting the echo they had learned, so the
    /// device's own voice came out of them as if the user spoke (the scenario matrix's tuning echo scenes with their
    /// echo taken out at 10 s: 12 % of the frames after it taken for speech once the gate stood aside, up to
    /// 51 % in one room). When the echo comes back they resume where they paused. Default true. With a fixed
    /// alignment (``Alignment``) there is no estimator and the cancellers always run.
    public var pausesCancellersWithoutEcho = true

    public init() {}

    /// The chain tuned for ASR under playback (barge-in), chosen by measurement through the front end on the
    /// test vectors (room with RT60 0.25 s, no delay given; see `ChainSweepTests`):
    /// speex MDF (128 ms tail, see below) with its residual-echo suppressor set mild while the near end talks (-5 dB) and
    /// -20 dB otherwise, then WebRTC AEC2 at low suppression with the 48 ms filter for what the linear filter
    /// leaves (onsets after pauses, unconverged bands). Measured at 16 kHz: double talk at SER 0 dB keeps the
    /// talker (magnitude SDR 10 dB over the double-talk spans) and removes far-end-only echo by 31 dB; the worst
    /// one-second ERLE from 3 s after the first echo is 29.4-34.9 dB at delays 0-400 ms. AEC2 alone removes the echo
    /// but deletes the talker in double talk (SDR about 1 dB); speex alone keeps the talker but leaves echo
    /// onsets (worst second 13-22 dB). The stages' latency (speex preprocessor one frame + AEC2 112 samples at
    /// 16 kHz, 272 samples, 17 ms) is reported as ``FrontEnd/processingDelay``: above issue 13's 10 ms target; the
    /// shorter chains measured (speex in 2.5 ms blocks, no residual suppressor) lose echo, double talk or CPU
    /// (README, latency table).
    /// The tail stays 128 ms although longer ones do better on the scenario matrix's tuning half (25 echo,
    /// echo_hard, drift, path-change, double-talk and rate scenes, RT60 up to 0.9 s; `evaluate.py --half tune
    /// --vad-only`): 160 ms raises the mean far-end-only ERLE 23.9 -> 25.3 dB (living room 18.9 -> 22.4, kitchen
    /// 18.9 -> 21.5, RT60 0.9 s 17.3 -> 18.8) and cuts echo-only VAD false-active 4.6 -> 1.7 %, 192 / 256 ms reach
    /// 26.2 / 26.9 dB, AEC2's extended filter after speex 26.2 dB (27.5 with 192 ms). What each costs on the
    /// existing tests' vectors (`afe process --echo-chain` tries them):
    /// - 160 ms: a Vorbis-coded mic (`ProcessCommandTests`, `mic.ogg`) keeps 14.0 dB median ERLE, below the 15 dB
    ///   asked (15.2 with 128 ms): the codec's distortion is no linear echo path, and the longer filter adapts
    ///   more slowly on it. The echo and double-talk vectors pass (worst second 25.2 dB, SDR 9.3 dB).
    /// - 144, 176, 192, 256 ms: the double-talk vector's last speech end comes 103-173 ms after its label (limit
    ///   100 ms; 93 ms with 128: a far-end onset just as the talker stops); 192 / 256 ms also re-converge too
    ///   slowly after the far end's pauses (`echo_d120ms_16k.wav`, worst second 24.1 / 23.3 dB, below 25 dB).
    /// - the extended AEC2 filter: its stronger suppression costs the talker in double talk (SDR 9.5 -> 7.5 dB on
    ///   `doubletalk_ser0db_16k.wav`, below `FrontEndDoubleTalkTests`' 8 dB).
    ///
    /// The tail grows to 192 ms in rooms whose echo outlasts 128 ms (``SpeexEchoCanceller/Configuration/
    /// grownTailMilliseconds``: the 128 ms filter's impulse response keeps more than -20 dB of its energy in its
    /// last quarter). Chosen on the tuning half (`evaluate.py --half tune --vad-only`, echo, echo_hard, drift,
    /// path_change, doubletalk, rate; 25 scenes) against the fixed 128 ms tail: far-end-only ERLE per kind
    /// echo 26.7 -> 28.5, echo_hard 24.6 -> 25.3, drift 25.6 -> 27.4, path change 22.5 -> 23.8 dB (living room
    /// 18.9 -> 23.6, kitchen 18.9 -> 22.9, RT60 0.9 s 17.3 -> 19.9), echo-only VAD false-active echo_hard 1.9 ->
    /// 0.8 % (RT60 0.9 s 9.6 -> 4.2 %), false starts per minute echo_hard 1.4 -> 0.5, reconvergence unchanged
    /// (0.93 s). Growing to 256 ms gains more ERLE (echo 28.9 dB) but RT60 0.9 s false-active rises to 26.1 %;
    /// a -17 dB limit misses the kitchen. The test vectors' room (RT60 0.25 s) keeps -22 to -35 dB there (the
    /// 0 and -5 dB SER double-talk vectors, every echo vector), so their tail stays 128 ms and the limits of
    /// the table above hold; the +5 dB SER double-talk vector (no test uses it) reaches -15 dB and grows.
    ///
    /// The speex filter is cleared when its output stands above the mic for 5 frames after it converged (the echo
    /// path changed: ``SpeexEchoCanceller/Configuration/divergenceResetDecibels``). Chosen on the tuning half's
    /// two path-change scenes and 8 more drawn from its pools: reconvergence (far-end-only time) mean 0.74 ->
    /// 0.27 s, worst 3.48 -> 0.68 s, 3 -> 2 of 10 above 0.5 s; the 23 other far-end scenes of the tuning half
    /// (echo, echo_hard, drift, double talk, rate) unchanged bit for bit. The test half, run once (2026-12-03):
    /// `path_moved` 0.59 -> 1.52 s (worse: the cleared filter re-adapted slower there than the old one),
    /// `path_door` 0.55 s either way, and it fired in `drift_m100` (ERLE 32.4 -> 31.7 dB) and `dt_ser0`
    /// (15.2 -> 16.4 dB); `reset-db=-99` of `afe process --echo-chain` turns it off.
    ///
    /// After such a clear AEC2 runs at high suppression for 4 s of playback, then back to low
    /// (``WebRTCEchoCanceller/Configuration/pathChangeSuppressionLevel``; the new path's residual is suppressed
    /// while both filters re-adapt). Chosen on 18 path-change scenes of the tuning material (the tuning half's 2,
    /// 8 more drawn from its pools and 8 in other rooms: `path_variants.py --start 5 --rooms ...`), reconvergence
    /// over far-end-only time: mean 0.70 -> 0.63 s, 5 -> 3 of 18 above 0.5 s (`path_moved_meeting_x8` 0.65 -> 0.17,
    /// `path_moved_x1` 0.42 -> 0.20, `path_moved_bedroom_x5` 4.13 -> 3.58 s), worst 4.13 -> 4.11 s; high for 1 or
    /// 2 s, or moderate for 2 s: mean 0.68 s, 4 of 18. A door opened clears nothing, so nothing reacts there
    /// (`path_door_living_x7` 4.11 s, `path_door_x1` 0.68 s). Other tuning kinds: output bit for bit unchanged
    /// (no reset fires there). Test half, run once (2026-12-03): `path_moved` 1.52 -> 0.86 s, `path_door` 0.55 s.
    /// `aec2-change-level=-1` of `afe process --echo-chain` turns it off.
    ///
    /// After such a clear the delivered output is also held at least 25 dB under the mic for 1 s of playback
    /// (``WebRTCEchoCanceller/Configuration/pathChangeOutputDepthDecibels``, `PathChangeOutputLimiter`; the VAD,
    /// gate and barge-in still judge the cancellers' output): the new path's echo passes the re-adapting chain at
    /// 5-20 dB of reduction for about a second. Chosen on tuning material (branch reconv23, 2026-12-04): the tuning
    /// half's `path_moved` and 12 more path-change scenes drawn from its pools (`generate.py --extra-path 6`),
    /// reconvergence mean 0.46 -> 0.32 s, 5 -> 2 of 14 above 0.5 s (the two doors, where no clear fires); 20 dB or
    /// 500 ms not enough, 30 dB or 2 s no better; the 23 other tuning scenes and 14 extra double-talk scenes
    /// unchanged bit for bit (no clear fires). Test half, run once (2026-12-04): `path_moved` 0.86 -> 0.23 s,
    /// `path_door` 0.55 s either way; output changed in `path_moved`, `drift_m100` and `dt_ser0` (WER 0.860 ->
    /// 0.825, PESQ 1.207 -> 1.218, STOI 0.723 -> 0.720), mean ERLE per kind equal or up to +0.05 dB. Its cost: a
    /// talker in the held second after a clear is turned down too. `path-depth-db=-1` of `afe process
    /// --echo-chain` turns it off.
    public static var defaultEchoCancellation: EchoCancellation {
        var speex = SpeexEchoCanceller.Configuration()
        speex.tailMilliseconds = 128
        speex.grownTailMilliseconds = 192
        speex.growLimitDecibels = -20
        speex.residualEchoSuppression = true
        speex.echoSuppressDecibels = -20
        speex.echoSuppressActiveDecibels = -5
        speex.divergenceResetDecibels = 0
        speex.divergenceFrames = 5
        var webRTC = WebRTCEchoCanceller.Configuration()
        webRTC.suppressionLevel = .low
        webRTC.extendedFilter = false
        webRTC.pathChangeSuppressionLevel = .high
        webRTC.pathChangeMilliseconds = 4000
        webRTC.pathChangeOutputDepthDecibels = 25
        webRTC.pathChangeOutputMilliseconds = 1000
        return .speexThenWebRTC(speex, webRTC)
    }

    /// The rate of the delivered audio.
    public var effectiveOutputRate: Int { outputRate ?? processingRate }
}
