/// A session with the NLS `SpeechTranscriber` protocol (family C): Intelligent Speech Interaction real-time
/// transcription, or Tingwu's real-time meeting ingest at a `MeetingJoinUrl`.
public struct NLSConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The gateway URL (`wss://nls-gateway-cn-shanghai.aliyuncs.com/ws/v1`) or Tingwu's MeetingJoinUrl,
    /// used as given.
    public var url: String
    /// The access token. Sent as the `X-NLS-Token` header and, when the URL has no `token` query yet, as
    /// `?token=`. Tingwu: "default". Never logged or put in an error.
    public var token: String?
    /// `header.appkey` of every command, when set (Tingwu leaves it unset).
    public var appKey: String?
    /// `format`: `pcm`, or `opus` (Ogg Opus).
    public var format: AudioFormat
    /// `sample_rate`: 8000 or 16000.
    public var sampleRate: Int
    /// `enable_intermediate_result`. Default true (partial results).
    public var enableIntermediateResult: Bool
    /// `enable_punctuation_prediction`. Default true.
    public var enablePunctuationPrediction: Bool
    /// `enable_inverse_text_normalization`. Default true.
    public var enableInverseTextNormalization: Bool
    /// `max_sentence_silence` in ms, 200–6000, when set.
    public var maxSentenceSilenceMilliseconds: Int?
    /// `vocabulary_id`, when set.
    public var vocabularyId: String?
    /// `customization_id`, when set.
    public var customizationId: String?
    /// `speech_noise_threshold`, −1…1, when set.
    public var speechNoiseThreshold: Double?
    /// Further payload entries, sent as given.
    public var additional: [String: JSONValue]
    public var connection: ConnectionOptions

    public init(url: String, token: String? = nil, appKey: String? = nil, format: AudioFormat = .pcm,
                sampleRate: Int = 16000, enableIntermediateResult: Bool = true,
                enablePunctuationPrediction: Bool = true, enableInverseTextNormalization: Bool = true,
                maxSentenceSilenceMilliseconds: Int? = nil, vocabularyId: String? = nil,
                customizationId: String? = nil, speechNoiseThreshold: Double? = nil,
                additional: [String: JSONValue] = [:], connection: ConnectionOptions = ConnectionOptions()) {
        self.url = url
        self.token = token
        self.appKey = appKey
        self.format = format
        self.sampleRate = sampleRate
        self.enableIntermediateResult = enableIntermediateResult
        self.enablePunctuationPrediction = enablePunctuationPrediction
        self.enableInverseTextNormalization = enableInverseTextNormalization
        self.maxSentenceSilenceMilliseconds = maxSentenceSilenceMilliseconds
        self.vocabularyId = vocabularyId
        self.customizationId = customizationId
        self.speechNoiseThreshold = speechNoiseThreshold
        self.additional = additional
        self.connection = connection
    }

    /// The configuration with the token, the URL's userinfo and its query replaced by `***`.
    public var description: String {
        let base = Redactor(secrets: token.map { [$0] } ?? []).redact(url: url).split(separator: "?", maxSplits: 1).first
            .map(String.init) ?? url
        return "NLSConfiguration(url: \(base)?***, token: \(token == nil ? "nil" : "***"), "
            + "appKey: \(appKey ?? "nil"), format: \(format.rawValue), sampleRate: \(sampleRate))"
    }

    func validate() throws {
        try ControlCharacters.check([(url, "url"), (token, "token"), (appKey, "appKey"), (vocabularyId, "vocabulary_id"),
                                     (customizationId, "customization_id")])
        guard sampleRate == 8000 || sampleRate == 16000 else {
            throw SpeechStreamingError(.invalidConfiguration, "NLS sample_rate must be 8000 or 16000 Hz, not \(sampleRate)")
        }
        if let ms = maxSentenceSilenceMilliseconds, !(200...6000).contains(ms) {
            throw SpeechStreamingError(.invalidConfiguration, "max_sentence_silence must be 200–6000 ms, not \(ms)")
        }
        if let t = speechNoiseThreshold, !(-1.0...1.0).contains(t) {
            throw SpeechStreamingError(.invalidConfiguration, "speech_noise_threshold must be in -1…1, not \(t)")
        }
        try connection.validate()
    }
}
