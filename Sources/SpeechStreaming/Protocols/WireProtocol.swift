import Foundation

/// What a session needs from a wire protocol: where to connect, which headers to send, the control
/// messages, and how to read server messages. Implemented by ``DashScopeProtocol`` and ``NLSProtocol``.
///
/// Builders and the parser are pure functions of their inputs (ids are passed in), so tests compare the
/// messages field by field. Not real-time safe (Foundation JSON); they run on the network thread.
protocol WireProtocol: Sendable {
    var endpoint: Endpoint { get }
    /// Extra handshake headers, names without the trailing colon.
    var handshakeHeaders: [(name: String, value: String)] { get }
    var format: AudioFormat { get }
    var sampleRate: Int { get }
    /// Secrets to redact from anything reported upward: the key or token and the URL's (``Redactor``).
    var secrets: [String] { get }
    /// Whether the connection stays open for the next task after a task completes.
    var reusesConnection: Bool { get }
    func startMessage(taskId: String) -> String
    func finishMessage(taskId: String) -> String
    /// A mid-task context update, or nil when the protocol has none.
    func contextMessage(taskId: String, context: [ContextMessage]) -> String?
    func parse(_ text: String) throws(SpeechStreamingError) -> ParsedMessage
}

/// A server message reduced to what the session acts on.
struct ParsedMessage: Equatable {
    /// `header.task_id`, when present.
    var taskId: String?
    var items: [ServerMessage]
}

enum ServerMessage: Equatable {
    case started(sessionId: String?)
    case sentenceBegin(sentenceId: Int, beginMilliseconds: Int)
    case result(ParsedResult)
    case translation(ParsedTranslation)
    case completed
    case failed(code: String, message: String)
}

struct ParsedResult: Equatable {
    var sentenceId: Int?
    var text: String
    var beginMilliseconds: Int?
    var endMilliseconds: Int?
    var isFinal: Bool
}

struct ParsedTranslation: Equatable {
    var sentenceId: Int?
    var text: String
    var language: String?
    var isFinal: Bool
}

/// JSON text in and out of Foundation objects.
package enum JSONText {
    /// Compact JSON with sorted keys.
    package static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object,
                                                     options: [.sortedKeys, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else { return "{}" }
        return text
    }

    /// The top-level object of a server message, or a malformedMessage error.
    package static func object(_ text: String) throws(SpeechStreamingError) -> [String: Any] {
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SpeechStreamingError(.malformedMessage, "server sent text that is not a JSON object: "
                                       + String(text.prefix(120)), rawJSON: String(text.prefix(4096)))
        }
        return object
    }

    /// A server message's `header`, its `header.<nameKey>` (the event name), `header.task_id` and
    /// `payload`, or a malformedMessage error naming what is missing.
    package static func envelope(_ text: String, nameKey: String, family: String) throws(SpeechStreamingError)
        -> (header: [String: Any], name: String, taskId: String?, payload: [String: Any]) {
        let object = try object(text)
        guard let header = object["header"] as? [String: Any], let name = header[nameKey] as? String else {
            throw SpeechStreamingError(.malformedMessage, "\(family) message without header.\(nameKey)",
                                       rawJSON: String(text.prefix(4096)))
        }
        return (header, name, header["task_id"] as? String, object["payload"] as? [String: Any] ?? [:])
    }

    /// The largest magnitude a number field (ms, sentence ids) keeps: 2^40 ms is 35 years, and sums and
    /// products of such values (time offsets, byte positions at 48 kHz) stay far from `Int` overflow.
    static let intLimit = 1 << 40

    /// A number field as an integer, clamped to ±``intLimit``; nil when it is not a finite number. A hostile
    /// server's 1e300 or 2^70 must not trap (`NSNumber.intValue` of an out-of-range double does).
    package static func int(_ value: Any?) -> Int? {
        guard let n = value as? NSNumber else { return nil }
        let double = n.doubleValue
        guard double.isFinite else { return nil }
        if double >= Double(intLimit) { return intLimit }
        if double <= -Double(intLimit) { return -intLimit }
        switch String(cString: n.objCType) {
        case "f", "d": return Int(double)
        default: return Int(n.int64Value)
        }
    }
}

/// 32 lowercase hex digits from the system's random generator: a DashScope `task_id`, an NLS `task_id`
/// or `message_id`.
package enum TaskIdentifier {
    package static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        return String(format: "%016llx%016llx", high, low)
    }
}
