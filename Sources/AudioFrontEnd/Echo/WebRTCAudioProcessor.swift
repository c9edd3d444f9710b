import CAudioShims

/// An internal owner of one webrtc-audio-processing instance (`afe_apm` in the C shim): configuration in,
/// render and capture frames, voice flag, speech probability and echo metrics out.
///
/// Used by ``WebRTCEchoCanceller``, ``WebRTCNoiseSuppressor`` and ``WebRTCVoiceActivityDetector``, each with its own
/// handle; in the front end a WebRTC canceller's instance also runs WebRTC NS and the VAD when they are configured
/// (``ProcessingChain``: one band split instead of three). The shim's `afe_apm_config` is used as the
/// configuration because this type is internal; the public stages translate their `Configuration` into it.
///
/// Invariant behind `@unchecked Sendable`: one thread at a time calls into an instance. The instance may move
/// between threads (created on a control thread, processed on the audio thread), never be used by two at once.
final class WebRTCAudioProcessor: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The configuration the instance was created with.
    let configuration: afe_apm_config
    /// Samples per 10 ms frame at the configured rate.
    let frameLength: Int

    /// The shim's defaults (AEC2 moderate, extended filter, metrics on, no NS, no VAD, no high-pass filter)
    /// at `sampleRate`. The corresponding C function is `afe_apm_config_init`.
    static func defaultConfiguration(sampleRate: Int) -> afe_apm_config {
        var config = afe_apm_config()
        afe_apm_config_init(&config)
        config.sample_rate_hz = Int32(clamping: sampleRate)
        return config
    }

    /// Creates and configures an instance. Allocates; not real-time safe.
    /// The corresponding C function is `afe_apm_create`.
    /// - Parameter component: the stage's name for error messages, e.g. "WebRTC echo canceller".
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate other than 8, 16, 32 or 48 kHz,
    ///   ``AudioFrontEndError/Code/libraryFailure`` with the library's status when it refuses the settings.
    init(configuration: afe_apm_config, component: String) throws {
        let rate = Int(configuration.sample_rate_hz)
        guard SampleRates.webRTCNative.contains(rate) else {
            throw AudioFrontEndError(.unsupportedSampleRate,
                                     "\(component) works at 8000, 16000, 32000 or 48000 Hz, not \(rate) Hz")
        }
        var config = configuration
        var status: Int32 = 0
        guard let created = afe_apm_create(&config, &status) else {
            throw Self.error(status, component: component, rate: rate)
        }
        handle = created
        self.configuration = configuration
        frameLength = Int(afe_apm_frame_length(created))
    }

    deinit { afe_apm_destroy(handle) }

    private static func error(_ status: Int32, component: String, rate: Int) -> AudioFrontEndError {
        switch status {
        case Int32(AFE_APM_ERROR_BAD_RATE), -7:
            return AudioFrontEndError(.unsupportedSampleRate, "\(component) cannot run at \(rate) Hz",
                                      libraryStatus: status)
        case Int32(AFE_APM_ERROR_NO_MEMORY), -2:
            return AudioFrontEndError(.libraryFailure, "\(component): webrtc-audio-processing could not be created",
                                      libraryStatus: status)
        case -3, -6:
            return AudioFrontEndError(.invalidConfiguration,
                                      "\(component): webrtc-audio-processing refused the settings at \(rate) Hz",
                                      libraryStatus: status)
        default:
            return AudioFrontEndError(.libraryFailure, "\(component): webrtc-audio-processing failed to configure",
                                      libraryStatus: status)
        }
    }

    /// Feeds one 10 ms far-end (render) frame. Call it before ``processCapture(_:streamDelayMilliseconds:)``
    /// for the same 10 ms. Real-time safe. Returns the library's status (0 ok).
    /// The corresponding C function is `afe_apm_process_render` (`ProcessReverseStream`).
    func processRender(_ frame: UnsafeBufferPointer<Int16>) -> Int32 {
        guard let base = frame.baseAddress else { return Int32(AFE_APM_ERROR_BAD_LENGTH) }
        return afe_apm_process_render(handle, base, Int32(truncatingIfNeeded: frame.count))
    }

    /// Processes one 10 ms capture (microphone) frame in place. Real-time safe. Returns the library's status:
    /// 0 ok; -13 (`kBadStreamParameterWarning`) when the delay was clamped, the frame is processed anyway.
    /// The corresponding C function is `afe_apm_process_capture` (`set_stream_delay_ms`, `ProcessStream`).
    func processCapture(_ frame: UnsafeMutableBufferPointer<Int16>, streamDelayMilliseconds: Int) -> Int32 {
        guard let base = frame.baseAddress else { return Int32(AFE_APM_ERROR_BAD_LENGTH) }
        return afe_apm_process_capture(handle, base, Int32(truncatingIfNeeded: frame.count),
                                       Int32(clamping: streamDelayMilliseconds))
    }

    /// Whether the last capture frame held voice, per the APM's VAD (false when the VAD is off). Real-time safe.
    /// The corresponding C function is `afe_apm_stream_has_voice`.
    var hasVoice: Bool { afe_apm_stream_has_voice(handle) == 1 }

    /// The noise suppressor's speech probability for the last capture frame, 0...1 (0 when NS is off).
    /// Real-time safe. The corresponding C function is `afe_apm_speech_probability`.
    var speechProbability: Float { afe_apm_speech_probability(handle) }

    /// Sets AEC2's suppression level (0...2) from the next capture frame on, keeping the filter. Real-time safe
    /// (no allocation; WebRTC's own lock, which every capture frame takes too). Returns the library's status.
    /// The corresponding C function is `afe_apm_set_suppression_level` (`set_suppression_level`).
    func setSuppressionLevel(_ level: Int32) -> Int32 { afe_apm_set_suppression_level(handle, level) }

    /// Switches AEC2's extended filter (128 / 48 ms) from the next capture frame on, keeping the filter weights.
    /// Real-time safe (no allocation: the options were built at creation; WebRTC's own lock). Returns the
    /// library's status. The corresponding C function is `afe_apm_set_extended_filter` (`SetExtraOptions`).
    func setExtendedFilter(_ enabled: Bool) -> Int32 { afe_apm_set_extended_filter(handle, enabled ? 1 : 0) }

    /// AEC2's metrics (nil fields when AEC2 or its metrics are off). Real-time safe.
    /// The corresponding C function is `afe_apm_get_metrics` (`GetMetrics`, `GetDelayMetrics`).
    func metrics() -> EchoMetrics {
        var raw = afe_apm_metrics()
        afe_apm_get_metrics(handle, &raw)
        var result = EchoMetrics()
        if raw.status == 0 {
            result.echoReturnLoss = Self.statistic(raw.echo_return_loss)
            result.echoReturnLossEnhancement = Self.statistic(raw.echo_return_loss_enhancement)
            result.residualEchoReturnLoss = Self.statistic(raw.residual_echo_return_loss)
            result.aNLP = Self.statistic(raw.a_nlp)
        }
        // The library reports a median of -1 until it has enough estimates.
        if raw.delay_status == 0 && raw.delay_median_ms >= 0 {
            result.delayMedianMilliseconds = Int(raw.delay_median_ms)
            result.delayStandardDeviationMilliseconds = Int(raw.delay_std_ms)
            result.fractionPoorDelays = raw.fraction_poor_delays
        }
        if configuration.echo_mode == Int32(AFE_APM_ECHO_AEC2) { result.hasEcho = raw.stream_has_echo == 1 }
        return result
    }

    /// Samples the capture output lags its input, by rate, with an echo canceller (AEC2 or AECM), noise
    /// suppression, or both in one instance (`noise` defaults to "no canceller"). Measured (silent reference,
    /// speech-like input) at each rate the library takes; above 16 kHz the band-splitting filters add a few
    /// samples (a fraction at 32 kHz), once per instance: both in one instance lag less than the two apart.
    static func latencySamples(sampleRate: Int, echo: Bool, noise: Bool? = nil) -> Int {
        switch (sampleRate, echo, noise ?? !echo) {
        case (8000, true, false), (16000, true, false): 112
        case (32000, true, false): 228
        case (48000, true, false): 382
        case (8000, false, true): 48
        case (16000, false, true): 96
        case (32000, false, true): 196
        case (48000, false, true): 335
        case (8000, true, true): 160
        case (16000, true, true): 208
        case (32000, true, true): 420
        case (48000, true, true): 671
        default: 0
        }
    }

    private static func statistic(_ s: afe_apm_statistic) -> EchoMetrics.Statistic {
        EchoMetrics.Statistic(instant: Int(s.instant), average: Int(s.average),
                              maximum: Int(s.maximum), minimum: Int(s.minimum))
    }

    /// Clears the stream state (filters, estimates) and keeps the settings. Not real-time safe.
    /// Returns the library's status. The corresponding C function is `afe_apm_reset` (`Initialize`).
    @discardableResult
    func reset() -> Int32 { afe_apm_reset(handle) }
}
