import Foundation
import NuiSDK
import SpeechSynthesis

/// The `parameters` of `startStreamInputTts`, parsed and range-checked into ``SynthesisParameters``.
///
/// | key | type | required | range (default: the service's) |
/// |---|---|---|---|
/// | `model`, `voice` | string | yes | – |
/// | `format` | string | no | pcm, wav, mp3 (default), opus |
/// | `sample_rate` | int | no | 8000, 16000, 22050 (default), 24000, 44100, 48000 |
/// | `volume` | int | no | 0…100 (50) |
/// | `rate`, `pitch` | number | no | 0.5…2.0 (1.0) |
/// | `bit_rate` | int kb/s | no | 6…510 (32), opus only |
/// | `enable_ssml`, `word_timestamp_enabled`, `enable_aigc_tag` | flag | no | false |
/// | `seed` | int | no | 0…65535 (0) |
/// | `language_hints` | string array | no | zh en fr de ja ko ru pt th id vi it ms |
/// | `instruction`, `aigc_propagator`, `aigc_propagate_id` | string | no | – |
enum TtsParameters {
    static func parse(_ text: UnsafePointer<CChar>?, warn: (String) -> Void) throws -> SynthesisParameters {
        var reader = ParameterReader(try ParameterReader.parse(text, what: "parameters"))
        var p = SynthesisParameters(model: try reader.required(reader.string("model"), "model"),
                                    voice: try reader.required(reader.string("voice"), "voice"), format: .mp3)
        if let format = try reader.choice("format", SynthesisFormat.allCases.map(\.rawValue)) {
            p.format = SynthesisFormat(rawValue: format)!
        }
        if let rate = try reader.int("sample_rate", 1...1_000_000) {
            guard SynthesisParameters.sampleRates.contains(rate) else {
                throw NuiParameterError(.NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "sample_rate",
                                        "must be 8000, 16000, 22050, 24000, 44100 or 48000, not \(rate)")
            }
            p.sampleRate = rate
        }
        p.volume = try reader.int("volume", 0...100)
        p.rate = try reader.double("rate", 0.5...2.0)
        p.pitch = try reader.double("pitch", 0.5...2.0)
        p.bitRate = try reader.int("bit_rate", 6...510)
        p.enableSSML = try reader.flag("enable_ssml")
        p.wordTimestampEnabled = try reader.flag("word_timestamp_enabled")
        p.seed = try reader.int("seed", 0...65535)
        if let hints = try reader.stringArray("language_hints") {
            guard !hints.isEmpty else { throw reader.valueError("language_hints", "must not be empty") }
            for hint in hints where !SynthesisParameters.languages.contains(hint) {
                throw reader.valueError("language_hints", "\"\(hint)\" is not one of \(SynthesisParameters.languages.joined(separator: " "))")
            }
            p.languageHints = hints
        }
        p.instruction = try reader.string("instruction")
        p.enableAIGCTag = try reader.flag("enable_aigc_tag")
        p.aigcPropagator = try reader.string("aigc_propagator")
        p.aigcPropagateId = try reader.string("aigc_propagate_id")
        if p.bitRate != nil && p.format != .opus { warn("bit_rate applies to format opus only; sent anyway") }
        for key in reader.unknownKeys { warn("unknown parameter \(key) ignored") }
        return p
    }
}
