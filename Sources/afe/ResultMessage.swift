import Foundation

/// The parts of a result message (the server's JSON the NUI callback passes) that `afe stream` prints:
/// DashScope's `payload.output.sentence` (or `transcription`, `translations`) and NLS's `payload`.
struct ResultMessage {
    var text = ""
    var sentenceId: Int?
    var beginMilliseconds: Int?
    var endMilliseconds: Int?
    var taskId: String?

    init(_ pointer: UnsafePointer<CChar>?) {
        guard let pointer, let object = try? JSONSerialization.jsonObject(with: Data(String(cString: pointer).utf8)),
              let message = object as? [String: Any] else { return }
        let header = message["header"] as? [String: Any] ?? [:]
        taskId = header["task_id"] as? String ?? message["task_id"] as? String
        let payload = message["payload"] as? [String: Any] ?? [:]
        if let output = payload["output"] as? [String: Any] { // DashScope
            var sentence = (output["sentence"] ?? output["transcription"]) as? [String: Any]
            if sentence == nil, let translations = output["translations"] as? [[String: Any]] { sentence = translations.first }
            let fields = sentence ?? [:]
            text = fields["text"] as? String ?? ""
            sentenceId = Self.int(fields["sentence_id"])
            beginMilliseconds = Self.int(fields["begin_time"])
            endMilliseconds = Self.int(fields["end_time"])
        } else { // NLS
            text = (payload["translate_result"] ?? payload["result"]) as? String ?? ""
            sentenceId = Self.int(payload["index"])
            beginMilliseconds = Self.int(payload["begin_time"])
            endMilliseconds = Self.int(payload["time"])
        }
    }

    /// The sentence's span in seconds as the CLI prints it: `[1.20–3.45 s]` (`?` for an end not given).
    var span: String {
        let end = endMilliseconds.map { String(format: "%.2f", Double($0) / 1000) } ?? "?"
        return String(format: "[%.2f–%@ s]", Double(beginMilliseconds ?? 0) / 1000, end)
    }

    private static func int(_ value: Any?) -> Int? {
        (value as? NSNumber)?.intValue ?? (value as? String).flatMap { Int($0) }
    }
}
