import Foundation
import SpeechStreaming

/// The `dialog_params` of `nui_dialog_start`: a fresh temporary `apikey` and the `input_context` for context
/// biasing, both optional; and the parsing of `nui_dialog_action`'s `context`.
struct DialogParameters: Equatable {
    var apiKey: String?
    var context: [ContextMessage] = []

    init() {}

    /// Parses `dialog_params`; NULL, like "" or `{}`, means none (nui.h: "may be \"\" or NULL").
    init(json text: UnsafePointer<CChar>?, warn: (String) -> Void) throws {
        guard let text else { return }
        var reader = ParameterReader(try ParameterReader.parse(text, what: "dialog_params"))
        apiKey = try reader.string("apikey")
        if let raw = reader.any("input_context") {
            context = try Self.context(raw, key: "input_context")
        }
        for key in reader.unknownKeys { warn("unknown parameter \(key) ignored") }
    }

    /// Context messages in the NUI shape `[{"role": "user", "content": [{"text": "…", "type": "input_text"}]}]`,
    /// given as an array or as a string holding one.
    static func context(_ raw: Any, key: String) throws -> [ContextMessage] {
        var value = raw
        if let text = raw as? String {
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
                throw NuiParameterError(.NUI_ERR_INVALID_PARAMETER_TYPE, key, "must be an array of messages (or a string holding one)")
            }
            value = parsed
        }
        guard let messages = value as? [[String: Any]] else {
            throw NuiParameterError(.NUI_ERR_INVALID_PARAMETER_TYPE, key, "must be an array of message objects")
        }
        return try messages.enumerated().map { index, message in
            guard let roleName = message["role"] as? String, let role = ContextMessage.Role(rawValue: roleName) else {
                throw NuiParameterError(.NUI_ERR_INVALID_PARAMETER_VALUE, "\(key)[\(index)].role", "must be \"user\" or \"assistant\"")
            }
            guard let content = message["content"] as? [[String: Any]] else {
                throw NuiParameterError(.NUI_ERR_INVALID_PARAMETER_TYPE, "\(key)[\(index)].content", "must be an array of {text, type}")
            }
            let texts = content.compactMap { $0["text"] as? String }
            guard texts.count == content.count else {
                throw NuiParameterError(.NUI_ERR_INVALID_PARAMETER_TYPE, "\(key)[\(index)].content", "every entry needs a string text")
            }
            return ContextMessage(role: role, text: texts.joined(separator: " "))
        }
    }
}

/// A parsed `nui_dialog_action`: `{"type": "action", "command": "context" | "play_start" | "play_over", "context": …}`.
enum DialogAction: Equatable {
    case context([ContextMessage])
    case playStart
    case playOver

    init(json text: UnsafePointer<CChar>?, warn: (String) -> Void) throws {
        var reader = ParameterReader(try ParameterReader.parse(text, what: "action_params"))
        let type = try reader.required(reader.string("type"), "type")
        guard type == "action" else { throw reader.valueError("type", "must be \"action\", not \"\(type)\"") }
        switch try reader.required(reader.choice("command", ["context", "play_start", "play_over"]), "command") {
        case "context":
            let raw = try reader.required(reader.any("context"), "context")
            self = .context(try DialogParameters.context(raw, key: "context"))
        case "play_start": self = .playStart
        default: self = .playOver
        }
        for key in reader.unknownKeys { warn("unknown parameter \(key) ignored") }
    }
}
