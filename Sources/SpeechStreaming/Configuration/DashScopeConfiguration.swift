/// A session with DashScope's real-time ASR over the task protocol (`/api-ws/v1/inference`, family A:
/// run-task, continue-task, finish-task).
public struct DashScopeConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The service URL. Default Beijing: `wss://dashscope.aliyuncs.com/api-ws/v1/inference`.
    public var url: String
    /// The API key (or a temporary `st-` token), sent as `Authorization: Bearer <key>`. Never logged or
    /// put in an error.
    public var apiKey: String
    /// Sent as `X-DashScope-WorkSpace` when set.
    public var workspace: String?
    /// What goes into `payload.parameters` of run-task.
    public var parameters: DashScopeParameters
    /// Conversation context sent in run-task's `payload.input.context` (empty: `"input": {}`).
    public var context: [ContextMessage]
    public var connection: ConnectionOptions

    public init(url: String = "wss://dashscope.aliyuncs.com/api-ws/v1/inference", apiKey: String,
                workspace: String? = nil, parameters: DashScopeParameters = DashScopeParameters(),
                context: [ContextMessage] = [], connection: ConnectionOptions = ConnectionOptions()) {
        self.url = url
        self.apiKey = apiKey
        self.workspace = workspace
        self.parameters = parameters
        self.context = context
        self.connection = connection
    }

    /// The configuration with the API key and the URL's secrets (``Redactor/redact(url:)``) replaced by `***`.
    public var description: String {
        "DashScopeConfiguration(url: \(Redactor(secrets: [apiKey]).redact(url: url)), apiKey: ***, workspace: \(workspace ?? "nil"), model: \(parameters.model), "
            + "format: \(parameters.format.rawValue), sampleRate: \(parameters.sampleRate))"
    }

    func validate() throws {
        guard !apiKey.isEmpty else { throw SpeechStreamingError(.invalidConfiguration, "apiKey is empty") }
        try ControlCharacters.check([(url, "url"), (apiKey, "apiKey"), (workspace, "workspace")])
        try parameters.validate()
        try connection.validate()
    }
}

/// The recognition parameters of a DashScope task: every parameter of NUI's `nls_config`.
///
/// Optional values left nil are not sent, so the service's documented default applies.
public struct DashScopeParameters: Sendable, Equatable {
    /// `model`, e.g. `fun-asr-realtime`, `paraformer-realtime-v2`, `qwen-audio-3.0-asr-flash-streaming`.
    public var model: String
    /// `format`: `pcm` or `opus` (Ogg Opus).
    public var format: AudioFormat
    /// `sample_rate` in Hz.
    public var sampleRate: Int
    /// `semantic_punctuation_enabled` (service default false: VAD segmentation).
    public var semanticPunctuationEnabled: Bool?
    /// `max_sentence_silence` in ms, 200–6000 (service default 1300).
    public var maxSentenceSilenceMilliseconds: Int?
    /// `multi_threshold_mode_enabled` (service default false).
    public var multiThresholdModeEnabled: Bool?
    /// `heartbeat`: keep the connection through long silence (service default false).
    public var heartbeat: Bool?
    /// `vocabulary_id`: a precompiled hot-word list.
    public var vocabularyId: String?
    /// `vocabulary`: instant hot words, word → weight 1–5 or 50 (NUI's `instant_vocabulary`).
    public var instantVocabulary: [String: Int]?
    /// `language_hints`, e.g. `["zh", "en"]`.
    public var languageHints: [String]?
    /// `speech_noise_threshold`, −1…1.
    public var speechNoiseThreshold: Double?
    /// `special_word_filter`, passed through as JSON.
    public var specialWordFilter: JSONValue?
    /// Further `parameters` entries, sent as given (they override the named ones).
    public var additional: [String: JSONValue]

    public init(model: String = "fun-asr-realtime", format: AudioFormat = .pcm, sampleRate: Int = 16000,
                semanticPunctuationEnabled: Bool? = nil, maxSentenceSilenceMilliseconds: Int? = nil,
                multiThresholdModeEnabled: Bool? = nil, heartbeat: Bool? = nil, vocabularyId: String? = nil,
                instantVocabulary: [String: Int]? = nil, languageHints: [String]? = nil,
                speechNoiseThreshold: Double? = nil, specialWordFilter: JSONValue? = nil,
                additional: [String: JSONValue] = [:]) {
        self.model = model
        self.format = format
        self.sampleRate = sampleRate
        self.semanticPunctuationEnabled = semanticPunctuationEnabled
        self.maxSentenceSilenceMilliseconds = maxSentenceSilenceMilliseconds
        self.multiThresholdModeEnabled = multiThresholdModeEnabled
        self.heartbeat = heartbeat
        self.vocabularyId = vocabularyId
        self.instantVocabulary = instantVocabulary
        self.languageHints = languageHints
        self.speechNoiseThreshold = speechNoiseThreshold
        self.specialWordFilter = specialWordFilter
        self.additional = additional
    }

    func validate() throws {
        func fail(_ message: String) -> SpeechStreamingError { SpeechStreamingError(.invalidConfiguration, message) }
        guard !model.isEmpty else { throw fail("model is empty") }
        try ControlCharacters.check([(model, "model"), (vocabularyId, "vocabulary_id")])
        guard (8000...48000).contains(sampleRate) else { throw fail("sample_rate must be 8000–48000 Hz, not \(sampleRate)") }
        if let ms = maxSentenceSilenceMilliseconds, !(200...6000).contains(ms) {
            throw fail("max_sentence_silence must be 200–6000 ms, not \(ms)")
        }
        if let t = speechNoiseThreshold, !(-1.0...1.0).contains(t) {
            throw fail("speech_noise_threshold must be in -1…1, not \(t)")
        }
        if let words = instantVocabulary {
            for (word, weight) in words where !((1...5).contains(weight) || weight == 50) {
                throw fail("instant vocabulary weight of \"\(word)\" must be 1–5 or 50, not \(weight)")
            }
            if words.values.filter({ $0 == 50 }).count > 50 { throw fail("at most 50 super hot words (weight 50)") }
        }
    }
}
