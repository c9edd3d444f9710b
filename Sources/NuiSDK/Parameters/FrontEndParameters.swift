import AudioFrontEnd

/// The on-device front-end settings of `nui_set_params` (top-level keys next to `service_type` and `nls_config`;
/// an extension of the NUI parameters, which leave them to the SDK).
///
/// | key | type | default |
/// |---|---|---|
/// | `enable_aec` | flag | true with `audio_update_manually`, else false (nothing to cancel without a reference) |
/// | `aec_backend` | `default`, `webrtc`, `webrtc_mobile`, `speex`, `speex_webrtc` | `default`: the library's barge-in chain (`FrontEndConfiguration.defaultEchoCancellation`: Speex MDF 128 ms growing to 192 ms in long rooms, then WebRTC AEC2 low) |
/// | `aec_suppression_level` | `low`, `moderate`, `high` (WebRTC AEC2) | the chain's (`low` in `default`, else `moderate`) |
/// | `aec_tail_ms` | int 20…1000 (Speex filter length) | 128 (growing to 192 ms in long rooms; a tail given is kept) |
/// | `enable_ns` | flag | false |
/// | `ns_backend` | `webrtc`, `speex` | `webrtc` |
/// | `ns_level` | `low`, `moderate`, `high`, `very_high` (WebRTC) | `moderate` |
/// | `ns_suppress_db` | int −100…−1 (Speex) | −15 |
/// | `enable_vad` | flag | true with `audio_update_manually`, else false |
/// | `vad_backend` | `energy`, `webrtc` | `energy` |
/// | `vad_end_silence` | int ms 200…6000 | `nls_config.max_sentence_silence`, else 1300 |
/// | `vad_sensitivity` | number −1…1 (as `speech_noise_threshold`) | `nls_config.speech_noise_threshold`, else 0 |
/// | `barge_in_suspicion` | flag: the front end also reports barge-in suspicions (`FrontEndConfiguration.bargeInSuspicion`, `suggestedBargeInSuspicion`; the decision beside it `suggestedBargeInWithSuspicion`), on which a `NeoNuiStreamInputTts` with barge-in ducks its answer | false |
/// | `opus_bitrate` | int 6000…510000 bit/s | 24000 |
/// | `opus_complexity` | int 0…10 | 5 |
struct FrontEndParameters: Equatable {
    var echoCancellation: FrontEndConfiguration.EchoCancellation = .off
    var noiseSuppression: FrontEndConfiguration.NoiseSuppression = .off
    var voiceDetection: FrontEndConfiguration.VoiceDetection?
    var bargeInSuspicion = false
    var opusBitrate = 24000
    var opusComplexity = 5

    var isEchoCancellationOn: Bool { echoCancellation != .off }

    /// Reads the keys from the top level of the set_params object.
    init(_ reader: inout ParameterReader, manual: Bool, maxSentenceSilence: Int?, speechNoiseThreshold: Double?) throws {
        if try reader.flag("enable_aec") ?? manual {
            let level = try reader.choice("aec_suppression_level", ["low", "moderate", "high"])
            let tail = try reader.int("aec_tail_ms", 20...1000)
            let backend = try reader.choice("aec_backend", ["default", "webrtc", "webrtc_mobile", "speex", "speex_webrtc"]) ?? "default"
            var (speex, webRTC) = (SpeexEchoCanceller.Configuration(), WebRTCEchoCanceller.Configuration())
            if case .speexThenWebRTC(let defaultSpeex, let defaultWebRTC) = FrontEndConfiguration.defaultEchoCancellation,
               backend == "default" {
                (speex, webRTC) = (defaultSpeex, defaultWebRTC)
            } else {
                webRTC.extendedFilter = true
                webRTC.suppressionLevel = .moderate
            }
            if let level { webRTC.suppressionLevel = ["low": .low, "high": .high][level] ?? .moderate }
            if let tail { (speex.tailMilliseconds, speex.grownTailMilliseconds) = (tail, nil) } // as given: no growth
            switch backend {
            case "webrtc": echoCancellation = .webRTC(webRTC)
            case "webrtc_mobile":
                webRTC.mode = .mobile
                echoCancellation = .webRTC(webRTC)
            case "speex": echoCancellation = .speex(speex)
            default: echoCancellation = .speexThenWebRTC(speex, webRTC)
            }
            if backend == "default" && level == nil && tail == nil {
                echoCancellation = FrontEndConfiguration.defaultEchoCancellation
            }
        } else {
            for key in ["aec_backend", "aec_suppression_level", "aec_tail_ms"] { _ = reader.any(key) }
        }
        let nsBackend = try reader.choice("ns_backend", ["webrtc", "speex"]) ?? "webrtc"
        let nsLevel = try reader.choice("ns_level", ["low", "moderate", "high", "very_high"]) ?? "moderate"
        let nsDecibels = try reader.int("ns_suppress_db", -100...(-1)) ?? -15
        if try reader.flag("enable_ns") ?? false {
            if nsBackend == "speex" {
                noiseSuppression = .speex(SpeexNoiseSuppressor.Configuration(sampleRate: 16000, noiseSuppressDecibels: nsDecibels))
            } else {
                let level: WebRTCNoiseSuppressor.Configuration.Level =
                    ["low": .low, "high": .high, "very_high": .veryHigh][nsLevel] ?? .moderate
                noiseSuppression = .webRTC(WebRTCNoiseSuppressor.Configuration(sampleRate: 16000, level: level))
            }
        }
        let backend = try reader.choice("vad_backend", ["energy", "webrtc"]) ?? "energy"
        let endSilence = try reader.int("vad_end_silence", 200...6000) ?? maxSentenceSilence ?? 1300
        let sensitivity = try reader.double("vad_sensitivity", -1...1) ?? speechNoiseThreshold ?? 0
        if try reader.flag("enable_vad") ?? manual {
            let threshold = try SpeechNoiseThreshold(Float(sensitivity))
            // The front end's tuned defaults (margin, hangover, voicing, onset), the margin moved by the sensitivity.
            var detection = FrontEndConfiguration.VoiceDetection()
            detection.segmenter.endSilenceMilliseconds = endSilence
            if backend == "webrtc" {
                detection.detector = .webRTC(WebRTCVoiceActivityDetector.Configuration(speechNoiseThreshold: threshold))
            } else {
                detection.detector = .energy(Self.energyDetector(threshold))
            }
            voiceDetection = detection
        }
        bargeInSuspicion = try reader.flag("barge_in_suspicion") ?? false
        opusBitrate = try reader.int("opus_bitrate", 6000...510_000) ?? opusBitrate
        opusComplexity = try reader.int("opus_complexity", 0...10) ?? opusComplexity
    }

    /// The front end's default energy detector (``FrontEndConfiguration/VoiceDetection/defaultEnergyDetector``)
    /// with its margin moved by `threshold`: 2 dB per unit of NUI's `speech_noise_threshold` / `vad_sensitivity`
    /// (so −1…1 gives 3…7 dB around the default 5 dB), the hysteresis the same share of it (2 dB at 5 dB).
    static func energyDetector(_ threshold: SpeechNoiseThreshold) -> EnergyVoiceActivityDetector.Configuration {
        var energy = FrontEndConfiguration.VoiceDetection.defaultEnergyDetector
        let scale = energy.releaseDecibels / energy.thresholdDecibels
        energy.thresholdDecibels += 2 * threshold.value
        energy.releaseDecibels = scale * energy.thresholdDecibels
        return energy
    }

    /// The front end for mic and reference audio at `sampleRate` Hz (the output rate and Opus encoding are set by
    /// the recognition core from the format).
    func configuration(sampleRate: Int) -> FrontEndConfiguration {
        var configuration = FrontEndConfiguration()
        configuration.mic = .init(sampleRate: sampleRate)
        configuration.reference = .init(sampleRate: sampleRate)
        configuration.processingRate = sampleRate == 8000 ? 8000 : 16000
        configuration.echoCancellation = echoCancellation
        configuration.noiseSuppression = noiseSuppression
        configuration.voiceDetection = voiceDetection
        if bargeInSuspicion {
            configuration.bargeIn = FrontEndConfiguration.suggestedBargeInWithSuspicion
            configuration.bargeInSuspicion = FrontEndConfiguration.suggestedBargeInSuspicion
        }
        return configuration
    }
}
