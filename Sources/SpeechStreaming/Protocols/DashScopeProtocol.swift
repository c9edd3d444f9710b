/// DashScope's duplex task protocol (asr-protocols.md family A): run-task, binary audio, continue-task,
/// finish-task; events task-started, result-generated, task-finished, task-failed.
package struct DashScopeProtocol: WireProtocol {
    let configuration: DashScopeConfiguration
    let endpoint: Endpoint

    init(_ configuration: DashScopeConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        endpoint = try Endpoint(url: configuration.url)
    }

    var handshakeHeaders: [(name: String, value: String)] {
        Self.handshakeHeaders(apiKey: configuration.apiKey, userAgent: configuration.connection.userAgent,
                              workspace: configuration.workspace)
    }

    /// DashScope's upgrade headers: `Authorization: Bearer`, `User-Agent`, `X-DashScope-WorkSpace` when set. Also
    /// used by the speech-synthesis client (module SpeechSynthesis), which speaks the same task protocol.
    package static func handshakeHeaders(apiKey: String, userAgent: String,
                                         workspace: String?) -> [(name: String, value: String)] {
        var headers = [(name: "Authorization", value: "Bearer \(apiKey)"), (name: "User-Agent", value: userAgent)]
        if let workspace, !workspace.isEmpty { headers.append((name: "X-DashScope-WorkSpace", value: workspace)) }
        return headers
    }

    var format: AudioFormat { configuration.parameters.format }
    var sampleRate: Int { configuration.parameters.sampleRate }
    var secrets: [String] { [configuration.apiKey] + Redactor.secrets(inURL: configuration.url) }
    var reusesConnection: Bool { true }

    func startMessage(taskId: String) -> String {
        JSONText.encode(Self.runTask(taskId: taskId, parameters: configuration.parameters,
                                     context: configuration.context))
    }

    func finishMessage(taskId: String) -> String { JSONText.encode(Self.finishTask(taskId: taskId)) }

    func contextMessage(taskId: String, context: [ContextMessage]) -> String? {
        JSONText.encode(Self.continueTask(taskId: taskId, context: context))
    }

    // MARK: Message builders (spec §4.1, §4.3, §4.4)

    /// A task message's header. Also used by the speech-synthesis client, which speaks the same task protocol.
    package static func header(_ action: String, _ taskId: String) -> [String: Any] {
        ["action": action, "task_id": taskId, "streaming": "duplex"]
    }

    static func input(_ context: [ContextMessage]) -> [String: Any] {
        context.isEmpty ? [:] : ["context": context.map(\.jsonObject)]
    }

    static func runTask(taskId: String, parameters p: DashScopeParameters, context: [ContextMessage]) -> [String: Any] {
        var parameters: [String: Any] = ["format": p.format.rawValue, "sample_rate": p.sampleRate]
        parameters["semantic_punctuation_enabled"] = p.semanticPunctuationEnabled
        parameters["max_sentence_silence"] = p.maxSentenceSilenceMilliseconds
        parameters["multi_threshold_mode_enabled"] = p.multiThresholdModeEnabled
        parameters["heartbeat"] = p.heartbeat
        parameters["vocabulary_id"] = p.vocabularyId
        parameters["vocabulary"] = p.instantVocabulary
        parameters["language_hints"] = p.languageHints
        parameters["speech_noise_threshold"] = p.speechNoiseThreshold
        parameters["special_word_filter"] = p.specialWordFilter?.foundationObject
        for (key, value) in p.additional { parameters[key] = value.foundationObject }
        return ["header": header("run-task", taskId),
                "payload": ["task_group": "audio", "task": "asr", "function": "recognition",
                            "model": p.model, "parameters": parameters, "input": input(context)] as [String: Any]]
    }

    static func continueTask(taskId: String, context: [ContextMessage]) -> [String: Any] {
        ["header": header("continue-task", taskId), "payload": ["input": input(context)]]
    }

    static func finishTask(taskId: String) -> [String: Any] {
        ["header": header("finish-task", taskId), "payload": ["input": [String: Any]()]]
    }

    // MARK: Events (spec §6)

    func parse(_ text: String) throws(SpeechStreamingError) -> ParsedMessage {
        let (header, event, taskId, payload) = try JSONText.envelope(text, nameKey: "event", family: "DashScope")
        switch event {
        case "task-started":
            return ParsedMessage(taskId: taskId, items: [.started(sessionId: nil)])
        case "task-finished":
            return ParsedMessage(taskId: taskId, items: [.completed])
        case "task-failed":
            return ParsedMessage(taskId: taskId, items: [.failed(code: header["error_code"] as? String ?? "",
                                                                message: header["error_message"] as? String ?? "")])
        case "result-generated":
            return ParsedMessage(taskId: taskId, items: Self.results(payload["output"] as? [String: Any] ?? [:]))
        default:
            return ParsedMessage(taskId: taskId, items: [])
        }
    }

    /// `output.sentence` (Paraformer, Fun-ASR, Qwen-Audio) or `output.transcription` and
    /// `output.translations` (Gummy, whose sentence ids count from 0: they are shifted to count from 1 like
    /// the others). Heartbeat sentences are dropped.
    static func results(_ output: [String: Any]) -> [ServerMessage] {
        var items: [ServerMessage] = []
        let gummy = output["sentence"] == nil
        func id(_ value: Any?) -> Int? { JSONText.int(value).map { gummy ? $0 + 1 : $0 } }
        if let sentence = (output["sentence"] ?? output["transcription"]) as? [String: Any],
           (sentence["heartbeat"] as? Bool) != true {
            items.append(.result(ParsedResult(sentenceId: id(sentence["sentence_id"]),
                                              text: sentence["text"] as? String ?? "",
                                              beginMilliseconds: JSONText.int(sentence["begin_time"]),
                                              endMilliseconds: JSONText.int(sentence["end_time"]),
                                              isFinal: isFinal(sentence))))
        }
        for translation in output["translations"] as? [[String: Any]] ?? [] {
            items.append(.translation(ParsedTranslation(sentenceId: id(translation["sentence_id"]),
                                                        text: translation["text"] as? String ?? "",
                                                        language: translation["lang"] as? String,
                                                        isFinal: isFinal(translation))))
        }
        return items
    }

    /// Final when `sentence_end` is true; without `sentence_end`, when `end_time` is set (spec §6.2).
    static func isFinal(_ sentence: [String: Any]) -> Bool {
        if let end = sentence["sentence_end"] as? Bool { return end }
        return JSONText.int(sentence["end_time"]) != nil
    }
}
