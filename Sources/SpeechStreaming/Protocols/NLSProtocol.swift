/// The NLS SpeechTranscriber protocol (asr-protocols.md §11): StartTranscription, binary audio,
/// StopTranscription; events TranscriptionStarted, SentenceBegin, TranscriptionResultChanged, SentenceEnd,
/// TranscriptionCompleted, TaskFailed, and Tingwu's ResultTranslated.
struct NLSProtocol: WireProtocol {
    let configuration: NLSConfiguration
    let endpoint: Endpoint
    static let namespace = "SpeechTranscriber"
    static let successStatus = 20_000_000

    init(_ configuration: NLSConfiguration) throws {
        try configuration.validate()
        self.configuration = configuration
        endpoint = try Endpoint(url: configuration.url, extraQuery: configuration.token.map { [("token", $0)] } ?? [])
    }

    var handshakeHeaders: [(name: String, value: String)] {
        var headers = [(name: "User-Agent", value: configuration.connection.userAgent)]
        if let token = configuration.token { headers.append((name: "X-NLS-Token", value: token)) }
        return headers
    }

    var format: AudioFormat { configuration.format }
    var sampleRate: Int { configuration.sampleRate }
    var secrets: [String] { (configuration.token.map { [$0] } ?? []) + Redactor.secrets(inURL: configuration.url) }
    /// The server closes after TranscriptionCompleted, so the session does too.
    var reusesConnection: Bool { false }

    func startMessage(taskId: String) -> String {
        JSONText.encode(Self.startTranscription(taskId: taskId, messageId: TaskIdentifier.make(),
                                                configuration: configuration))
    }

    func finishMessage(taskId: String) -> String {
        JSONText.encode(Self.stopTranscription(taskId: taskId, messageId: TaskIdentifier.make(),
                                               appKey: configuration.appKey))
    }

    func contextMessage(taskId: String, context: [ContextMessage]) -> String? { nil }

    // MARK: Message builders (spec §11.1)

    static func header(_ name: String, taskId: String, messageId: String, appKey: String?) -> [String: Any] {
        var header: [String: Any] = ["message_id": messageId, "task_id": taskId, "namespace": namespace, "name": name]
        header["appkey"] = appKey
        return header
    }

    static var sdkContext: [String: Any] { ["sdk": ["name": "AudioFrontEnd", "version": "1.0", "language": "swift"]] }

    static func startTranscription(taskId: String, messageId: String, configuration c: NLSConfiguration) -> [String: Any] {
        var payload: [String: Any] = [
            "format": c.format.rawValue, "sample_rate": c.sampleRate,
            "enable_intermediate_result": c.enableIntermediateResult,
            "enable_punctuation_prediction": c.enablePunctuationPrediction,
            "enable_inverse_text_normalization": c.enableInverseTextNormalization,
        ]
        payload["max_sentence_silence"] = c.maxSentenceSilenceMilliseconds
        payload["vocabulary_id"] = c.vocabularyId
        payload["customization_id"] = c.customizationId
        payload["speech_noise_threshold"] = c.speechNoiseThreshold
        for (key, value) in c.additional { payload[key] = value.foundationObject }
        return ["header": header("StartTranscription", taskId: taskId, messageId: messageId, appKey: c.appKey),
                "payload": payload, "context": sdkContext]
    }

    static func stopTranscription(taskId: String, messageId: String, appKey: String?) -> [String: Any] {
        ["header": header("StopTranscription", taskId: taskId, messageId: messageId, appKey: appKey),
         "context": sdkContext]
    }

    // MARK: Events

    func parse(_ text: String) throws(SpeechStreamingError) -> ParsedMessage {
        let (header, name, taskId, p) = try JSONText.envelope(text, nameKey: "name", family: "NLS")
        let index = JSONText.int(p["index"])
        let item: ServerMessage?
        switch name {
        case "TranscriptionStarted":
            item = .started(sessionId: p["session_id"] as? String)
        case "SentenceBegin":
            item = .sentenceBegin(sentenceId: index ?? 0, beginMilliseconds: JSONText.int(p["time"]) ?? 0)
        case "TranscriptionResultChanged":
            item = .result(ParsedResult(sentenceId: index, text: p["result"] as? String ?? "", beginMilliseconds: nil,
                                        endMilliseconds: JSONText.int(p["time"]), isFinal: false))
        case "SentenceEnd":
            item = .result(ParsedResult(sentenceId: index, text: p["result"] as? String ?? "",
                                        beginMilliseconds: JSONText.int(p["begin_time"]),
                                        endMilliseconds: JSONText.int(p["time"]), isFinal: true))
        case "ResultTranslated":
            item = .translation(Self.translation(p))
        case "TranscriptionCompleted":
            item = .completed
        case "TaskFailed":
            let status = JSONText.int(header["status"]).map(String.init) ?? (header["status"] as? String ?? "")
            let text = header["status_text"] as? String ?? header["status_message"] as? String ?? ""
            item = .failed(code: status, message: text)
        default:
            item = nil
        }
        return ParsedMessage(taskId: taskId, items: item.map { [$0] } ?? [])
    }

    /// Tingwu's ResultTranslated is not documented; this reads the likely field names and keeps the raw JSON.
    static func translation(_ p: [String: Any]) -> ParsedTranslation {
        var text = p["translate_result"] as? String ?? p["result"] as? String ?? p["text"] as? String
        var language = p["target_lang"] as? String ?? p["lang"] as? String
        if text == nil, let list = (p["translate_result"] ?? p["translations"]) as? [[String: Any]],
           let first = list.first {
            text = first["text"] as? String
            language = language ?? first["lang"] as? String ?? first["target_lang"] as? String
        }
        return ParsedTranslation(sentenceId: JSONText.int(p["index"] ?? p["sentence_id"]), text: text ?? "",
                                 language: language, isFinal: (p["sentence_end"] as? Bool) ?? true)
    }
}
