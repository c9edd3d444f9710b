import AudioFrontEnd
import Foundation
import SpeechStreaming

/// The recognition parameters of `nui_set_params`, parsed and checked against the protocol chosen by `url`.
///
/// Top level: `service_type` (int, required, 4), `nls_config` (object, required) and the on-device settings of
/// ``FrontEndParameters``. `nls_config`:
///
/// | key | type | required | default / range |
/// |---|---|---|---|
/// | `model` | string | DashScope | – |
/// | `sr_format` | `pcm` or `opus` | yes | – (`opus`: the SDK encodes the PCM it gets as Ogg Opus) |
/// | `sample_rate` | int | yes | DashScope 8000 or 16000…48000 (whole 10 ms frames), NLS 8000 or 16000; not 8000 with AEC or VAD on |
/// | `semantic_punctuation_enabled` | flag | no | service default (false) |
/// | `max_sentence_silence` | int ms | no | 200…6000, service default 1300 (NLS 800) |
/// | `multi_threshold_mode_enabled` | flag | no | service default (false) |
/// | `heartbeat` | flag | no | service default (false) |
/// | `vocabulary_id` | string | no | – |
/// | `instant_vocabulary` | object word → int 1…5 or 50 | no | – |
/// | `language_hints` | array of strings | no | – |
/// | `speech_noise_threshold` | number | no | −1…1 |
/// | `special_word_filter` | object (or JSON string) | no | – |
/// | `enable_connection_fast_check` | flag | no | false (true: pings every second, 3 s response timeout) |
/// | `enable_reconnection` | flag | no | false |
/// | `finish_timeout` | int ms | no | 10000; 1000…600000: how long `nui_dialog_cancel(NO)` waits for the final result (an addition of this SDK) |
/// | `enable_intermediate_result`, `enable_punctuation_prediction`, `enable_inverse_text_normalization` | flag | no | NLS, true |
/// | `customization_id` | string | no | NLS |
struct RecognitionParameters: Equatable {
    var serviceType = 4
    var format = AudioFormat.pcm
    var sampleRate = 16000
    var dashScope = DashScopeParameters()
    var nlsFlags: [String: Bool] = [:]
    var customizationId: String?
    var fastCheck = false
    var reconnection = false
    /// How long the server may take to finish after `nui_dialog_cancel(NO)`.
    var finishTimeoutMilliseconds = 10000
    var frontEnd: FrontEndParameters

    /// Parses and checks `text` for a connection set up by `initParameters`; `warn` gets a line per unknown key.
    init(json text: UnsafePointer<CChar>?, for initParameters: InitParameters, warn: (String) -> Void) throws {
        var top = ParameterReader(try ParameterReader.parse(text, what: "params"))
        serviceType = try top.required(top.int("service_type", Int.min...Int.max), "service_type")
        guard serviceType == 4 else { throw top.valueError("service_type", "must be 4 (real-time recognition), not \(serviceType)") }
        var nls = ParameterReader(try top.required(top.object("nls_config"), "nls_config"), prefix: "nls_config.")
        let model = try nls.string("model")
        if initParameters.wireProtocol == .dashScope { dashScope.model = try nls.required(model, "model") }
        format = try nls.required(nls.choice("sr_format", ["pcm", "opus"]), "sr_format") == "opus" ? .opus : .pcm
        sampleRate = try nls.required(nls.int("sample_rate", 1...384_000), "sample_rate")
        dashScope.format = format
        dashScope.sampleRate = sampleRate
        dashScope.semanticPunctuationEnabled = try nls.flag("semantic_punctuation_enabled")
        dashScope.maxSentenceSilenceMilliseconds = try nls.int("max_sentence_silence", 200...6000)
        dashScope.multiThresholdModeEnabled = try nls.flag("multi_threshold_mode_enabled")
        dashScope.heartbeat = try nls.flag("heartbeat")
        dashScope.vocabularyId = try nls.string("vocabulary_id")
        dashScope.instantVocabulary = try Self.vocabulary(&nls)
        dashScope.languageHints = try nls.stringArray("language_hints")
        dashScope.speechNoiseThreshold = try nls.double("speech_noise_threshold", -1...1)
        dashScope.specialWordFilter = try Self.specialWordFilter(&nls)
        fastCheck = try nls.flag("enable_connection_fast_check") ?? false
        reconnection = try nls.flag("enable_reconnection") ?? false
        finishTimeoutMilliseconds = try nls.int("finish_timeout", 1000...600_000) ?? finishTimeoutMilliseconds
        for key in ["enable_intermediate_result", "enable_punctuation_prediction", "enable_inverse_text_normalization"] {
            if let value = try nls.flag(key) { nlsFlags[key] = value }
        }
        customizationId = try nls.string("customization_id")
        frontEnd = try FrontEndParameters(&top, manual: initParameters.audioUpdateManually,
                                          maxSentenceSilence: dashScope.maxSentenceSilenceMilliseconds,
                                          speechNoiseThreshold: dashScope.speechNoiseThreshold)
        try checkSampleRate(initParameters.wireProtocol)
        for key in top.unknownKeys + nls.unknownKeys { warn("unknown parameter \(key) ignored") }
    }

    private func checkSampleRate(_ wire: InitParameters.WireProtocol) throws {
        func refuse(_ message: String) -> NuiParameterError {
            NuiParameterError(.NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "nls_config.sample_rate", message)
        }
        if sampleRate == 8000 && (frontEnd.isEchoCancellationOn || frontEnd.voiceDetection != nil) {
            throw refuse("8000 Hz is not supported with on-device AEC or VAD enabled")
        }
        if wire == .nls && sampleRate != 8000 && sampleRate != 16000 {
            throw refuse("NLS takes 8000 or 16000 Hz, not \(sampleRate)")
        }
        if sampleRate != 8000 && !(16000...48000).contains(sampleRate) {
            throw refuse("must be 8000 or 16000…48000 Hz, not \(sampleRate)")
        }
        if sampleRate % 100 != 0 {
            throw refuse("must hold a whole number of samples in 10 ms (e.g. 16000, 44100, 48000), not \(sampleRate)")
        }
    }

    private static func vocabulary(_ reader: inout ParameterReader) throws -> [String: Int]? {
        guard let object = try reader.object("instant_vocabulary") else { return nil }
        var words: [String: Int] = [:]
        for (word, weight) in object {
            guard let number = weight as? NSNumber, !ParameterReader.isBoolean(number),
                  let value = Int(exactly: number.doubleValue) else {
                throw reader.typeError("instant_vocabulary", "an object of integer weights (\"\(word)\" is not)")
            }
            guard (1...5).contains(value) || value == 50 else {
                throw reader.valueError("instant_vocabulary", "weight of \"\(word)\" must be 1…5 or 50, not \(value)")
            }
            words[word] = value
        }
        if words.values.filter({ $0 == 50 }).count > 50 {
            throw reader.valueError("instant_vocabulary", "at most 50 super hot words (weight 50)")
        }
        return words
    }

    private static func specialWordFilter(_ reader: inout ParameterReader) throws -> JSONValue? {
        guard let raw = reader.any("special_word_filter") else { return nil }
        if let text = raw as? String {
            guard let value = try? JSONValue(parsing: text), case .object = value else {
                throw reader.typeError("special_word_filter", "a JSON object (or a string holding one)")
            }
            return value
        }
        guard raw is [String: Any], let data = try? JSONSerialization.data(withJSONObject: raw),
              let value = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)) else {
            throw reader.typeError("special_word_filter", "a JSON object (or a string holding one)")
        }
        return value
    }
}
