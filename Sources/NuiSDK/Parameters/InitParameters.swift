import Foundation
import SpeechStreaming

/// The connection and control parameters of `nui_initialize`, parsed and checked.
///
/// | key | type | required | default |
/// |---|---|---|---|
/// | `url` | string | yes | – (ws:// or wss://; `/api-ws/…` speaks DashScope, `/ws/v1…` or `/api/ws/v1…` NLS/Tingwu) |
/// | `apikey` | string | DashScope | – (never logged) |
/// | `app_key`, `token` | string | NLS/Tingwu | – (`"default"` for Tingwu; the token is never logged) |
/// | `service_mode` | string | yes | – (`"1"`) |
/// | `device_id` | string | yes | – |
/// | `audio_update_manually` | flag | no | false (pull mode) |
/// | `workspace` | string (directory) | Tingwu; DashScope with `audio_update_manually` | – |
/// | `debug_path` | string (directory) | with save_log | – (created when missing) |
/// | `save_wav` | flag | no | false (only with save_log) |
/// | `max_log_file_size` | int bytes, 1024…2^40 | no | 104857600 |
/// | `log_track_level` | int 0…5 | no | 2 (INFO) |
package struct InitParameters: Equatable {
    enum WireProtocol: Equatable { case dashScope, nls }

    var url: String
    var wireProtocol: WireProtocol
    var apiKey: String?
    var appKey: String?
    var token: String?
    var serviceMode: String
    var deviceId: String
    var audioUpdateManually = false
    var workspace: String?
    var debugPath: String?
    var saveWav = false
    var maxLogFileSize = 104_857_600
    var logTrackLevel = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO

    /// The secrets of these parameters, for redaction: the API key, the token, and the URL's (every query value,
    /// userinfo, fragment).
    var secrets: [String] {
        Self.urlSecrets(url) + [apiKey, token].compactMap { $0 }.filter { $0.count >= 4 && $0 != "default" }
    }

    /// Every query value of `url` (a Tingwu MeetingJoinUrl's `mc`, an NLS `token`, …) and what ``Redactor``
    /// counts as the URL's secrets.
    package static func urlSecrets(_ url: String) -> [String] {
        let values = URLComponents(string: url)?.queryItems?.compactMap(\.value) ?? []
        return (values + Redactor.secrets(inURL: url)).filter { $0 != "default" }
    }

    /// The secrets in raw parameter text, found before any check so that even an error about them is redacted:
    /// string values of `apikey` and `token`, and the query values of `url`.
    static func rawSecrets(_ text: UnsafePointer<CChar>?) -> [String] {
        guard let object = try? ParameterReader.parse(text, what: "parameters") else { return [] }
        let keys = ["apikey", "token"].compactMap { object[$0] as? String }.filter { $0 != "default" }
        return keys + ((object["url"] as? String).map(urlSecrets) ?? [])
    }

    /// Parses and checks the parameters; `warn` receives a line per unknown key.
    init(json text: UnsafePointer<CChar>?, saveLog: Bool, warn: (String) -> Void) throws {
        var reader = ParameterReader(try ParameterReader.parse(text, what: "parameters"))
        url = try reader.required(reader.string("url"), "url")
        guard let components = URLComponents(string: url), ["ws", "wss"].contains(components.scheme?.lowercased() ?? ""),
              components.host?.isEmpty == false else {
            throw reader.valueError("url", "must be a ws:// or wss:// URL with a host")
        }
        let path = components.path
        if path.hasPrefix("/api-ws/") {
            wireProtocol = .dashScope
        } else if path.hasPrefix("/ws/v1") || path.hasPrefix("/api/ws/v1") {
            wireProtocol = .nls
        } else {
            throw reader.valueError("url", "path must be DashScope's /api-ws/v1/inference or NLS's /ws/v1 (Tingwu /api/ws/v1)")
        }
        apiKey = try reader.string("apikey")
        appKey = try reader.string("app_key")
        token = try reader.string("token")
        switch wireProtocol {
        case .dashScope: _ = try reader.required(apiKey, "apikey")
        case .nls:
            _ = try reader.required(appKey, "app_key")
            _ = try reader.required(token, "token")
        }
        serviceMode = try reader.required(reader.string("service_mode"), "service_mode")
        guard serviceMode == "1" else { throw reader.valueError("service_mode", "must be \"1\" (online recognition), not \"\(serviceMode)\"") }
        deviceId = try reader.required(reader.string("device_id"), "device_id")
        audioUpdateManually = try reader.flag("audio_update_manually") ?? false
        workspace = try reader.string("workspace")
        if workspace == nil && (wireProtocol == .nls || audioUpdateManually) {
            throw reader.missing("workspace")
        }
        if let workspace {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: workspace, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw NuiParameterError(.NUI_ERR_INVALID_PATH, "workspace", "is not an existing directory")
            }
        }
        debugPath = try reader.string("debug_path")
        saveWav = try reader.flag("save_wav") ?? false
        maxLogFileSize = try reader.int("max_log_file_size", 1024...(1 << 40)) ?? maxLogFileSize
        if let level = try reader.int("log_track_level", 0...5) { logTrackLevel = NuiSdkLogLevel(rawValue: Int32(level))! }
        if saveLog {
            let path = try reader.required(debugPath, "debug_path")
            try Self.prepareDirectory(path, key: "debug_path")
        }
        for key in reader.unknownKeys { warn("unknown parameter \(key) ignored") }
    }

    /// Creates `path` when missing and checks it is a writable directory.
    package static func prepareDirectory(_ path: String, key: String) throws {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: path) else {
            throw NuiParameterError(.NUI_ERR_INVALID_PATH, key, "is not a writable directory")
        }
    }
}
