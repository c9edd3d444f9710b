import CAudioShims

/// Echo cancellation by webrtc-audio-processing 0.3: AEC2 (`EchoCancellation`) or the mobile AECM
/// (`EchoControlMobile`), through the C shim's `afe_apm_*` functions.
///
/// Each ``process(capture:reference:output:)`` feeds the reference as the render stream, then cancels the
/// capture, so the render side always comes first for the same 10 ms. The caller aligns the reference as well as
/// it can and reports what delay remains through ``streamDelayMilliseconds`` (0...500 ms): AEC2's echo reduction
/// collapses when that delay is wrong by more than its filter covers (about 48 ms, 128 ms with the extended filter).
///
/// Threading: one thread at a time (the invariant behind `@unchecked Sendable`); create and ``reset()`` off the
/// audio thread, ``process(capture:reference:output:)`` and ``metrics()`` on it.
public final class WebRTCEchoCanceller: EchoCanceller, @unchecked Sendable {
    /// Settings of a ``WebRTCEchoCanceller``. Every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// Which of the library's two echo cancellers runs.
        public enum Mode: Sendable, Equatable {
            /// AEC2 (`EchoCancellation`): a frequency-domain adaptive filter plus a non-linear suppressor;
            /// 8, 16, 32 or 48 kHz (above 16 kHz it cancels 0–8 kHz and only suppresses the upper bands).
            case aec2
            /// AECM (`EchoControlMobile`): the low-complexity mobile canceller; 8 or 16 kHz only.
            case mobile
        }

        /// AEC2's non-linear suppression: higher removes more residual echo and hurts the near-end talker
        /// more during double talk.
        public enum SuppressionLevel: Int32, Sendable, Equatable, CaseIterable {
            case low = 0, moderate = 1, high = 2
        }

        /// AECM's assumed acoustic path, from a quiet earpiece or headset to a loud speakerphone.
        public enum RoutingMode: Int32, Sendable, Equatable, CaseIterable {
            case quietEarpieceOrHeadset = 0, earpiece = 1, loudEarpiece = 2, speakerphone = 3, loudSpeakerphone = 4
        }

        /// The rate in Hz: 8000, 16000, 32000 or 48000 (8000 or 16000 for ``Mode/mobile``). Default 16000.
        public var sampleRate: Int = 16000
        /// Default ``Mode/aec2``.
        public var mode: Mode = .aec2
        /// AEC2 only. Default ``SuppressionLevel/moderate`` (the library's default). Far-end-only echo falls by
        /// about 36 dB at every level once converged (delay given); during double talk at 0 dB SER (test vectors)
        /// the near end loses about 8.6 / 11.9 / 17.8 dB at low / moderate / high (magnitude SDR 2.2 / 1.2 /
        /// 0.5 dB).
        public var suppressionLevel: SuppressionLevel = .moderate
        /// AEC2 only: the extended filter (128 ms instead of 48 ms), which tolerates more delay error and
        /// longer rooms. Default true.
        public var extendedFilter: Bool = true
        /// AEC2 only: estimate the delay internally instead of trusting ``streamDelayMilliseconds`` alone.
        /// Default false: the pipeline aligns the streams itself.
        public var delayAgnostic: Bool = false
        /// The delay from the reference to its echo left after the caller's alignment, 0...500 ms. Default 0.
        public var streamDelayMilliseconds: Int = 0
        /// AEC2 only: compute ERL/ERLE/RERL/A_NLP and delay statistics for ``WebRTCEchoCanceller/metrics()``.
        /// Default true.
        public var metricsEnabled: Bool = true
        /// AECM only. Default ``RoutingMode/speakerphone`` (the library's default).
        public var routingMode: RoutingMode = .speakerphone
        /// AECM only: fill suppressed stretches with comfort noise. Default false (the pipeline's VAD and
        /// encoder prefer true silence).
        public var comfortNoise: Bool = false
        /// The APM's high-pass filter (cut-off about 80 Hz) on the capture side. Default false.
        public var highPassFilter: Bool = false
        /// AEC2 only: the suppression level to run at for ``pathChangeMilliseconds`` of playback after the
        /// stage before it reported an echo path change (``WebRTCEchoCanceller/echoPathChanged()``), then back to
        /// ``suppressionLevel``; nil (or not above ``suppressionLevel``): no reaction. Default nil; the front
        /// end's chain sets it (``FrontEndConfiguration/defaultEchoCancellation``).
        public var pathChangeSuppressionLevel: SuppressionLevel?
        /// Playback time (frames with a non-silent reference) the raised level lasts, 10...10000 ms. Default 2000.
        public var pathChangeMilliseconds: Int = 2000
        /// AEC2 behind speex in the front end's chain only: after a detected echo path change the chain holds its
        /// delivered output this many dB under the mic for ``pathChangeOutputMilliseconds`` of playback
        /// (`PathChangeOutputLimiter`); nil: not (the default here; the front end's chain sets 25 dB,
        /// ``FrontEndConfiguration/defaultEchoCancellation``), 0...60.
        public var pathChangeOutputDepthDecibels: Float?
        /// Playback time of that hold, 10...10000 ms. Default 1000.
        public var pathChangeOutputMilliseconds: Int = 1000

        public init() {}

        /// A configuration at `sampleRate` with every other field at its default.
        public init(sampleRate: Int, mode: Mode = .aec2) {
            self.sampleRate = sampleRate
            self.mode = mode
        }
    }

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// The delay passed with every capture frame, clamped to 0...500 ms when set. Real-time safe to set
    /// between frames. Starts at the configuration's value.
    public var streamDelayMilliseconds: Int {
        get { delay }
        set { delay = min(max(newValue, 0), 500) }
    }
    /// ``streamDelayMilliseconds``' storage: private, so the compiler sees every access and drops the runtime
    /// exclusivity check a public stored property costs on each frame's get and set.
    private var delay: Int

    private let processor: WebRTCAudioProcessor
    /// Whether the instance also suppresses noise (``init(configuration:hostedNoise:hostedVoice:)``).
    let hostsNoiseSuppression: Bool

    /// Creates the canceller. Allocates; not real-time safe. The corresponding C function is `afe_apm_create`.
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate the mode cannot run at (44.1 kHz,
    ///   AECM above 16 kHz); ``AudioFrontEndError/Code/invalidConfiguration`` for a stream delay outside
    ///   0...500 ms; ``AudioFrontEndError/Code/libraryFailure`` when the library refuses.
    public convenience init(configuration: Configuration = Configuration()) throws {
        try self.init(configuration: configuration, hostedNoise: nil, hostedVoice: nil)
    }

    /// A canceller whose `AudioProcessing` also runs the noise suppressor and/or the VAD after the echo
    /// canceller on the same band split, as one `ProcessStream` (the front end's chain when every one of them is
    /// WebRTC's, ``ProcessingChain``). NS then analyses the noise before the canceller and suppresses after it,
    /// the library's own order. Allocates; not real-time safe.
    init(configuration: Configuration, hostedNoise: WebRTCNoiseSuppressor.Configuration.Level?,
         hostedVoice: WebRTCVoiceActivityDetector.Likelihood?) throws {
        let rate = configuration.sampleRate
        let component = configuration.mode == .aec2 ? "WebRTC AEC2" : "WebRTC AECM"
        guard SampleRates.webRTCNative.contains(rate) else {
            throw AudioFrontEndError(.unsupportedSampleRate,
                                     "\(component) works at 8000, 16000, 32000 or 48000 Hz, not \(rate) Hz")
        }
        if configuration.mode == .mobile && rate > 16000 {
            throw AudioFrontEndError(.unsupportedSampleRate, "AECM works at 8000 or 16000 Hz, not \(rate) Hz")
        }
        try AudioFrontEndError.check(configuration.streamDelayMilliseconds, in: 0...500,
                                     "\(component) stream delay (ms)")
        try AudioFrontEndError.check(configuration.pathChangeMilliseconds, in: 10...10000,
                                     "\(component) path change suppression (ms)")
        try AudioFrontEndError.check(configuration.pathChangeOutputMilliseconds, in: 10...10000,
                                     "\(component) path change output hold (ms)")
        if let depth = configuration.pathChangeOutputDepthDecibels {
            try AudioFrontEndError.check(Int(depth), in: 0...60, "\(component) path change output depth (dB)")
        }
        var config = WebRTCAudioProcessor.defaultConfiguration(sampleRate: rate)
        switch configuration.mode {
        case .aec2:
            config.echo_mode = Int32(AFE_APM_ECHO_AEC2)
            config.suppression_level = configuration.suppressionLevel.rawValue
            config.extended_filter = configuration.extendedFilter ? 1 : 0
            config.delay_agnostic = configuration.delayAgnostic ? 1 : 0
            config.metrics = configuration.metricsEnabled ? 1 : 0
        case .mobile:
            config.echo_mode = Int32(AFE_APM_ECHO_AECM)
            config.aecm_routing_mode = configuration.routingMode.rawValue
            config.aecm_comfort_noise = configuration.comfortNoise ? 1 : 0
            config.extended_filter = 0
            config.delay_agnostic = 0
            config.metrics = 0
        }
        config.high_pass_filter = configuration.highPassFilter ? 1 : 0
        config.noise_suppression = hostedNoise?.rawValue ?? -1
        config.vad_likelihood = hostedVoice?.rawValue ?? -1
        processor = try WebRTCAudioProcessor(configuration: config, component: component)
        hostsNoiseSuppression = hostedNoise != nil
        self.configuration = configuration
        frameLength = processor.frameLength
        delay = configuration.streamDelayMilliseconds
    }

    /// Feeds `reference` as the render stream, then cancels its echo in `capture` into `output` (which may be
    /// the same memory as `capture`). Real-time safe: no allocation, locks or throwing; audio thread.
    /// The corresponding C functions are `afe_apm_process_render` and `afe_apm_process_capture`
    /// (`ProcessReverseStream`, `set_stream_delay_ms`, `ProcessStream`).
    /// - Returns: ``StageStatus/ok``; ``StageStatus/wrongFrameLength`` for buffers of another length (output
    ///   then holds capture); the library's status when it fails (output then holds capture).
    public func process(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard checkFrame(capture: capture, reference: reference, output: output) else { return .wrongFrameLength }
        copyCapture(capture, to: output, count: frameLength)
        let render = processor.processRender(reference)
        guard render == 0 else { return StageStatus(code: render) }
        let status = processor.processCapture(output, streamDelayMilliseconds: delay)
        if raisedFramesLeft > 0, reference.contains(where: { $0 != 0 }) {
            raisedFramesLeft -= 1
            if raisedFramesLeft == 0 { applyLevel() }
        }
        // -13 (kBadStreamParameterWarning) only says the delay was clamped; the frame was processed.
        return status == 0 || status == -13 ? .ok : StageStatus(code: status)
    }

    /// AEC2's ERL, ERLE, RERL, A_NLP (dB; the library reports -100 where a value is not computed yet) and its
    /// delay statistics (when ``Configuration/metricsEnabled``); all nil for AECM. Real-time safe; audio thread.
    /// Reading the delay statistics starts the library's one-second aggregation window.
    /// The corresponding C function is `afe_apm_get_metrics` (`GetMetrics`, `GetDelayMetrics`).
    public func metrics() -> EchoMetrics { processor.metrics() }

    /// The library's buffering delay at this rate (AEC2 and AECM alike; measured with a silent reference by
    /// `EchoCancellerContractTests.testDeclaredLatencyIsMeasured`).
    /// With noise suppression hosted, the suppressor's delay comes on top, the band split counted once
    /// (`SharedAudioProcessingTests.testHostedNoiseSuppressionDelayIsMeasured`).
    public var latencySamples: Int {
        WebRTCAudioProcessor.latencySamples(sampleRate: sampleRate, echo: true, noise: hostsNoiseSuppression)
    }

    /// Tells AEC2 that the echo path changed under the stage before it (the speex filter was cleared,
    /// ``SpeexEchoCanceller/divergenceResets``): AEC2 runs at ``Configuration/pathChangeSuppressionLevel`` for the
    /// next ``Configuration/pathChangeMilliseconds`` of playback while its filter and the one before it re-adapt,
    /// so the residual of the new path is suppressed instead of passed. A second call restarts the time. No-op
    /// without that setting. Real-time safe (no allocation; WebRTC's own lock, as every frame takes); audio thread,
    /// between frames.
    func echoPathChanged() {
        guard configuration.mode == .aec2, let level = configuration.pathChangeSuppressionLevel,
              level.rawValue > configuration.suppressionLevel.rawValue else { return }
        raisedFramesLeft = max(1, configuration.pathChangeMilliseconds / 10)
        applyLevel()
        pathChanges += 1
    }

    /// The settings AEC2 runs at while the far end plays alone (``setFarEndOnly(_:)``): a suppression level and
    /// whether the extended filter is on (nil: as configured).
    struct FarEndOnlySettings: Equatable {
        var suppressionLevel: Configuration.SuppressionLevel?
        var extendedFilter: Bool?
    }

    /// The far-end-only settings (``setFarEndOnly(_:)``); nil: none. Set on the control thread before processing.
    var farEndOnlySettings: FarEndOnlySettings?
    /// Whether AEC2 runs at ``farEndOnlySettings`` (``setFarEndOnly(_:)``).
    private(set) var isFarEndOnly = false
    /// Times ``setFarEndOnly(_:)`` switched to the far-end-only settings. Audio thread.
    private(set) var farEndOnlySwitches = 0

    /// Switches AEC2 to ``farEndOnlySettings`` (`true`: no near end is likely) or back to the configured ones,
    /// from the next frame on, keeping the filter and the stream state (`set_suppression_level`,
    /// `SetExtraOptions`). A call that changes nothing does nothing. Real-time safe (no allocation; WebRTC's own
    /// lock, as every frame takes); audio thread, between frames. AEC2 only; no-op without the settings.
    func setFarEndOnly(_ on: Bool) {
        guard configuration.mode == .aec2, let settings = farEndOnlySettings, on != isFarEndOnly else { return }
        isFarEndOnly = on
        if on { farEndOnlySwitches += 1 }
        if let extended = settings.extendedFilter, extended != configuration.extendedFilter {
            _ = processor.setExtendedFilter(on ? extended : configuration.extendedFilter)
        }
        if settings.suppressionLevel != nil { applyLevel() }
    }

    /// Sets the suppression level the state asks for: the highest of the configured one, the path-change one
    /// while it lasts, and the far-end-only one while that is on.
    private func applyLevel() {
        var level = configuration.suppressionLevel.rawValue
        if raisedFramesLeft > 0, let raised = configuration.pathChangeSuppressionLevel { level = max(level, raised.rawValue) }
        if isFarEndOnly, let boost = farEndOnlySettings?.suppressionLevel { level = max(level, boost.rawValue) }
        if level != appliedLevel {
            appliedLevel = level
            _ = processor.setSuppressionLevel(level)
        }
    }

    /// The suppression level last set in the library.
    private lazy var appliedLevel: Int32 = configuration.suppressionLevel.rawValue

    /// Frames of playback left at the raised level (``echoPathChanged()``); 0: at ``Configuration/suppressionLevel``.
    private var raisedFramesLeft = 0
    /// Times ``echoPathChanged()`` raised the level. Audio thread.
    private(set) var pathChanges = 0

    /// The hosted VAD's verdict on the last frame processed (false when no VAD is hosted). Real-time safe.
    var hasVoice: Bool { processor.hasVoice }

    /// Clears the adaptive state and keeps the configuration and the current stream delay. Not real-time safe.
    /// The corresponding C function is `afe_apm_reset` (`Initialize`).
    public func reset() {
        processor.reset()
        raisedFramesLeft = 0
        applyLevel()
    }
}
