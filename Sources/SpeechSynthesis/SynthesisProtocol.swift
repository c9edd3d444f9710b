import Foundation
import SpeechStreaming

/// The DashScope speech-synthesis messages (tts-protocol.md §2): builders and the server-message parser.
///
/// Pure functions of their inputs, so tests compare messages field by field. Not real-time safe (Foundation
/// JSON); they run on the network thread.
struct SynthesisProtocol: Sendable {
    let configuration: SynthesisConfiguration
    let endpoint: Endpoint

    init(_ configuration: SynthesisConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        endpoint = try Endpoint(url: configuration.url)
    }

    var handshakeHeaders: [(name: String, value: String)] {
        DashScopeProtocol.handshakeHeaders(apiKey: configuration.apiKey, userAgent: configuration.connection.userAgent,
                                           workspace: configuration.workspace)
    }

    var secrets: [String] { [configuration.apiKey] + Redactor.secrets(inURL: configuration.url) }

    func runTask(taskId: String) -> String {
        JSONText.encode(["header": DashScopeProtocol.header("run-task", taskId),
                         "payload": ["model": configuration.parameters.model, "task_group": "audio", "task": "tts",
                                     "function": "SpeechSynthesizer", "input": [String: Any](),
                                     "parameters": configuration.parameters.jsonObject] as [String: Any]])
    }

    static func continueTask(taskId: String, text: String) -> String {
        JSONText.encode(["header": DashScopeProtocol.header("continue-task", taskId), "payload": ["input": ["text": text]]])
    }

    static func finishTask(taskId: String) -> String {
        JSONText.encode(["header": DashScopeProtocol.header("finish-task", taskId), "payload": ["input": [String: Any]()]])
    }

    /// A server text message reduced to what the session acts on.
    enum Message: Equatable {
        case started
        case sentence(kind: String, index: Int, originalText: String?, words: [SynthesisWord], characters: Int?)
        case finished(characters: Int?, words: [SynthesisWord])
        case failed(code: String, message: String)
        /// Another event or result type: ignored (a newer server may add some).
        case other
    }

    /// Parses one server message; returns the task id and the message.
    /// - Throws: ``SpeechStreamingError/Code/malformedMessage`` for text that is not the protocol's JSON.
    static func parse(_ text: String) throws(SpeechStreamingError) -> (taskId: String?, message: Message) {
        let (header, event, taskId, payload) = try JSONText.envelope(text, nameKey: "event", family: "DashScope")
        let output = payload["output"] as? [String: Any] ?? [:]
        let sentence = output["sentence"] as? [String: Any] ?? [:]
        let words = Self.words(sentence["words"])
        let characters = JSONText.int((payload["usage"] as? [String: Any])?["characters"])
        switch event {
        case "task-started":
            return (taskId, .started)
        case "result-generated":
            guard let kind = output["type"] as? String else {
                throw SpeechStreamingError(.malformedMessage, "result-generated without payload.output.type",
                                           rawJSON: String(text.prefix(4096)))
            }
            let index = JSONText.int(sentence["index"]) ?? 0
            return (taskId, .sentence(kind: kind, index: index, originalText: output["original_text"] as? String,
                                      words: words, characters: characters))
        case "task-finished":
            return (taskId, .finished(characters: characters, words: words))
        case "task-failed":
            return (taskId, .failed(code: header["error_code"] as? String ?? "",
                                    message: header["error_message"] as? String ?? ""))
        default:
            return (taskId, .other)
        }
    }

    /// `words` entries with the documented keys; entries missing a key are skipped (a server may send partial ones).
    static func words(_ value: Any?) -> [SynthesisWord] {
        guard let list = value as? [Any] else { return [] }
        return list.compactMap { item in
            guard let word = item as? [String: Any], let text = word["text"] as? String,
                  let beginTime = JSONText.int(word["begin_time"]), let endTime = JSONText.int(word["end_time"]) else {
                return nil
            }
            return SynthesisWord(text: text, beginIndex: JSONText.int(word["begin_index"]) ?? 0,
                                 endIndex: JSONText.int(word["end_index"]) ?? 0, beginMilliseconds: beginTime,
                                 endMilliseconds: endTime)
        }
    }
}
