import Foundation
import NuiSDK

/// The `ticket` of `startStreamInputTts`, parsed and checked (stream-input TTS SDK reference).
///
/// | key | type | required | default |
/// |---|---|---|---|
/// | `url` | string | yes | – (ws:// or wss://, DashScope `/api-ws/…`) |
/// | `apikey` | string | yes | – (never logged) |
/// | `device_id` | string | yes | – |
/// | `complete_waiting_ms` | int ms, 1…600000 | no | 10000 |
/// | `debug_path` | string (directory) | with saveLog | – (created when missing) |
/// | `max_log_file_size` | int bytes, 1024…2^40 | no | 104857600 |
/// | `log_track_level` | int 0…5 | no | 2 (INFO) |
struct TtsTicket: Equatable {
    var url: String
    var apiKey: String
    var deviceId: String
    var completeWaitingMilliseconds = 10_000
    var debugPath: String?
    var maxLogFileSize = 104_857_600
    var logTrackLevel = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO

    /// The secrets in raw ticket text, found before any check so that even an error about them is redacted.
    static func rawSecrets(_ text: UnsafePointer<CChar>?) -> [String] {
        guard let object = try? ParameterReader.parse(text, what: "ticket") else { return [] }
        return [object["apikey"] as? String].compactMap { $0 } + ((object["url"] as? String).map(InitParameters.urlSecrets) ?? [])
    }

    init(json text: UnsafePointer<CChar>?, saveLog: Bool, warn: (String) -> Void) throws {
        var reader = ParameterReader(try ParameterReader.parse(text, what: "ticket"))
        url = try reader.required(reader.string("url"), "url")
        guard let components = URLComponents(string: url), ["ws", "wss"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false else {
            throw reader.valueError("url", "must be a ws:// or wss:// URL with a host")
        }
        guard components.path.hasPrefix("/api-ws/") else {
            throw reader.valueError("url", "path must be DashScope's /api-ws/v1/inference (NLS FlowingSpeechSynthesizer is not supported)")
        }
        apiKey = try reader.required(reader.string("apikey"), "apikey")
        deviceId = try reader.required(reader.string("device_id"), "device_id")
        completeWaitingMilliseconds = try reader.int("complete_waiting_ms", 1...600_000) ?? completeWaitingMilliseconds
        debugPath = try reader.string("debug_path")
        maxLogFileSize = try reader.int("max_log_file_size", 1024...(1 << 40)) ?? maxLogFileSize
        if let level = try reader.int("log_track_level", 0...5) { logTrackLevel = NuiSdkLogLevel(rawValue: Int32(level))! }
        if saveLog {
            try InitParameters.prepareDirectory(try reader.required(debugPath, "debug_path"), key: "debug_path")
        }
        for key in reader.unknownKeys { warn("unknown ticket key \(key) ignored") }
    }

    var secrets: [String] { [apiKey] + InitParameters.urlSecrets(url) }
}
