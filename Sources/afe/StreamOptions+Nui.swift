import Foundation
import SpeechStreaming

/// The NUI SDK's parameters for a stream, with the SDK's own keys (Sources/NuiSDK/ResultCodes.md).
extension StreamOptions {
    /// Whether the canceller runs: a reference to cancel and `--aec` not off.
    func echoCancellation(hasReference: Bool) -> Bool { hasReference && frontEnd.aec != "off" }

    /// What `afe stream` prints about the URL and the service passes SpeechStreaming's redactor: it knows the
    /// key or token from the environment and masks the URL's userinfo, fragment and secret query values.
    var redactor: Redactor {
        let environment = ProcessInfo.processInfo.environment
        return Redactor(secrets: ["DASHSCOPE_API_KEY", "NLS_TOKEN"].compactMap { environment[$0] } + Redactor.secrets(inURL: url))
    }

    /// `nui_initialize`'s parameters. The key or token is read from the environment here and nowhere else, and
    /// goes only into this JSON (the SDK replaces it by *** in everything it writes).
    func initParameters(environment: [String: String], workspace: String) throws -> String {
        let path = URLComponents(string: url)?.path ?? ""
        let nls = path.hasPrefix("/ws/v1") || path.hasPrefix("/api/ws/v1")
        var parameters: [String: Any] = ["url": url, "service_mode": "1", "device_id": "afe-cli",
                                         "audio_update_manually": true, "workspace": workspace]
        if wire == "nls" {
            let token = environment["NLS_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } ?? (isLoopback ? "local" : nil)
            guard let token else { throw Failure(message: "set NLS_TOKEN in the environment (the token is never taken from an argument)") }
            parameters["token"] = token
            parameters["app_key"] = appKey
        } else {
            let key = environment["DASHSCOPE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? (isLoopback ? "local" : nil)
            guard let key else {
                throw Failure(message: "set DASHSCOPE_API_KEY in the environment (the key is never taken from an argument)")
            }
            parameters["apikey"] = key
        }
        guard nls == (wire == "nls"), nls || path.hasPrefix("/api-ws/") else {
            throw Failure(message: "--url \(redactor.redact(url: url)): --protocol \(wire) needs the path " + (wire == "nls"
                ? "/ws/v1 (Tingwu /api/ws/v1)" : "/api-ws/v1/inference"))
        }
        if let debugPath {
            parameters["debug_path"] = debugPath
            parameters["save_wav"] = true
        }
        return try Self.json(parameters)
    }

    /// `nui_set_params`'s parameters for audio at `sampleRate` Hz: the service's settings under `nls_config`, the
    /// on-device front end at the top level from `--aec`, `--suppression` and `--ns`.
    func recognitionParameters(sampleRate: Int, hasReference: Bool) throws -> String {
        // finish_timeout is the SDK's own (10 s) unless --finish-timeout: the feeder keeps the mic at most
        // StreamCommand.maximumLead (1 s) ahead of the processed audio, but a recognizer slower than the upload
        // (PocketSphinx on a busy machine) still has seconds of audio to decode when the audio ends.
        var config: [String: Any] = ["sr_format": format, "sample_rate": sampleRate, "model": model]
        if let maxSentenceSilence { config["max_sentence_silence"] = maxSentenceSilence }
        if let finishTimeout { config["finish_timeout"] = finishTimeout }
        var parameters: [String: Any] = ["service_type": 4, "nls_config": config, "enable_vad": true]
        parameters["enable_aec"] = echoCancellation(hasReference: hasReference)
        if echoCancellation(hasReference: hasReference) {
            parameters["aec_backend"] = frontEnd.aec.replacingOccurrences(of: "-", with: "_")
            if let suppression = frontEnd.suppression { parameters["aec_suppression_level"] = suppression }
        }
        if let level = frontEnd.noiseSuppression, level != "off" {
            parameters["enable_ns"] = true
            parameters["ns_level"] = level.replacingOccurrences(of: "-", with: "_")
        }
        return try Self.json(parameters)
    }

    private static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
