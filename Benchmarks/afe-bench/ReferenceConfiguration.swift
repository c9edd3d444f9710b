import AudioFrontEnd
import CReferencePipeline

/// The reference pipeline of issue 7, in our configuration and in the bare C pipeline's, derived from one
/// another so the settings cannot drift apart.
enum ReferenceConfiguration {
    /// Mic and reference at 48 kHz → 16 kHz (speex quality 5, the pipeline's converter) → WebRTC AEC2 (moderate,
    /// extended filter, metrics on: the canceller's defaults) + WebRTC NS (moderate) + WebRTC VAD (low) →
    /// Opus VOIP 24 kb/s VBR complexity 5, 20 ms packets, no Ogg. Alignment is fixed at 0 ms (the input's echo
    /// has no delay), so no delay estimator runs: the C pipeline has none. No barge-in decision (the C pipeline
    /// has none either).
    static func ours(opusComplexity: Int = 5) -> FrontEndConfiguration {
        var c = FrontEndConfiguration()
        c.mic = .init(sampleRate: 48000)
        c.reference = .init(sampleRate: 48000)
        c.processingRate = 16000
        c.echoCancellation = .webRTC(WebRTCEchoCanceller.Configuration())
        c.alignment = .fixed(milliseconds: 0)
        c.noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration())
        c.voiceDetection = .init(detector: .webRTC(WebRTCVoiceActivityDetector.Configuration()))
        // The C pipeline decides no barge-in: ours without it too. With the library's default barge-in (its
        // per-band evidence included) ours was 1.036 x C in the run of 2026-12-03 14:55 UTC, 1.006 without.
        c.bargeIn = nil
        var opus = Opus.Encoder.Configuration()
        opus.complexity = opusComplexity
        opus.frameDuration = .milliseconds20
        c.encoding = .init(opus: opus, ogg: nil)
        return c
    }

    /// The same settings for the C pipeline. Only the subset the C pipeline implements is accepted.
    static func c(matching configuration: FrontEndConfiguration) throws -> afe_ref_config {
        var r = afe_ref_config()
        r.mic_rate = Int32(configuration.mic.sampleRate)
        r.reference_rate = Int32(configuration.reference.sampleRate)
        r.processing_rate = Int32(configuration.processingRate)
        r.resampler_quality = Int32(SpeexResampler.Configuration().quality)
        guard case .webRTC(let echo) = configuration.echoCancellation, echo.mode == .aec2 else {
            throw BenchmarkError("the C pipeline mirrors WebRTC AEC2 only")
        }
        r.aec_suppression_level = echo.suppressionLevel.rawValue
        r.aec_extended_filter = echo.extendedFilter ? 1 : 0
        r.aec_delay_agnostic = echo.delayAgnostic ? 1 : 0
        r.aec_metrics = echo.metricsEnabled ? 1 : 0
        guard case .fixed(let milliseconds) = configuration.alignment, milliseconds <= 10 else {
            throw BenchmarkError("the C pipeline has no delay estimator and no shift: use a fixed alignment ≤ 10 ms")
        }
        // EchoAlignment keeps a 10 ms margin: with a fixed delay ≤ 10 ms it does not shift the reference and
        // passes 10 ms to the canceller as the stream delay.
        r.stream_delay_ms = 10
        guard case .webRTC(let noise) = configuration.noiseSuppression else {
            throw BenchmarkError("the C pipeline mirrors WebRTC NS only")
        }
        r.ns_level = noise.level.rawValue
        guard case .webRTC(let vad) = configuration.voiceDetection?.detector else {
            throw BenchmarkError("the C pipeline mirrors the WebRTC VAD only")
        }
        r.vad_likelihood = vad.likelihood.rawValue
        guard let opus = configuration.encoding?.opus, configuration.encoding?.ogg == nil,
              opus.application == .voip, opus.signal == .voice, !opus.discontinuousTransmission, !opus.inbandFEC,
              opus.bitrateMode != .constrainedVariable else {
            throw BenchmarkError("the C pipeline mirrors Opus VOIP voice (VBR or CBR) without Ogg, DTX or FEC only")
        }
        r.opus_bitrate = Int32(opus.bitrate)
        r.opus_complexity = Int32(opus.complexity)
        r.opus_vbr = opus.bitrateMode == .variable ? 1 : 0
        r.opus_frame_ms = Int32(opus.frameDuration.rawValue / 48)
        return r
    }
}
