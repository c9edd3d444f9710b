import SpeechStreaming

/// A speech-synthesis session with DashScope CosyVoice / Qwen-Audio-TTS over the task protocol
/// (`/api-ws/v1/inference`: run-task with task `tts`, continue-task per text, finish-task).
public struct SynthesisConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// The service URL. Default Beijing: `wss://dashscope.aliyuncs.com/api-ws/v1/inference`.
    public var url: String
    /// The API key (or a temporary `st-` token), sent as `Authorization: Bearer <key>`. Never logged or put in an
    /// event or error (``Redactor``).
    public var apiKey: String
    /// Sent as `X-DashScope-WorkSpace` when set.
    public var workspace: String?
    /// What goes into `payload.model` and `payload.parameters` of run-task.
    public var parameters: SynthesisParameters
    /// Timeouts and limits, as for recognition: connect, start (run-task → task-started) and finish
    /// (finish-task → task-finished) default 10 s each; pings after 5 s of silence, a server that answers nothing
    /// (not even pongs) for 15 s is not responding; server messages and audio frames up to 1 MiB each.
    /// `eventBufferLimit` bounds ``SpeechSynthesisSession/events``. `audioQueueCapacityBytes`, `frameDuration`
    /// and `reconnection` are not used by synthesis.
    public var connection: ConnectionOptions

    public init(url: String = "wss://dashscope.aliyuncs.com/api-ws/v1/inference", apiKey: String,
                workspace: String? = nil, parameters: SynthesisParameters = SynthesisParameters(),
                connection: ConnectionOptions = ConnectionOptions()) {
        self.url = url
        self.apiKey = apiKey
        self.workspace = workspace
        self.parameters = parameters
        self.connection = connection
    }

    /// The configuration with the API key and the URL's secrets replaced by `***`.
    public var description: String {
        "SynthesisConfiguration(url: \(Redactor(secrets: [apiKey]).redact(url: url)), apiKey: ***, model: "
            + "\(parameters.model), voice: \(parameters.voice), format: \(parameters.format.rawValue), "
            + "sampleRate: \(parameters.sampleRate))"
    }

    func validate() throws {
        guard !apiKey.isEmpty else { throw SpeechStreamingError(.invalidConfiguration, "apiKey is empty") }
        try ControlCharacters.check([(url, "url"), (apiKey, "apiKey"), (workspace, "workspace")])
        try parameters.validate()
        try connection.validate()
    }
}

/// The audio the service sends: `pcm` (16-bit little-endian mono), `wav` (a header in the first frame only),
/// `mp3`, `opus` (every binary frame one whole Ogg page).
public enum SynthesisFormat: String, Sendable, CaseIterable {
    case pcm, wav, mp3, opus
}

/// The synthesis parameters of a task: every `parameters` key of the stream-input TTS SDK's reference.
///
/// Ranges are checked by ``SynthesisConfiguration`` (``SpeechStreamingError/Code/invalidConfiguration``).
/// Optional values left nil are not sent, so the service's default applies.
public struct SynthesisParameters: Sendable, Equatable {
    /// `model`, e.g. `cosyvoice-v2`, `cosyvoice-v3-flash`, `qwen-audio-3.0-tts-flash`.
    public var model: String
    /// `voice`: a system, cloned or designed voice of the model.
    public var voice: String
    /// `format`. Default ``SynthesisFormat/pcm`` (needs no decoder; the service's own default is mp3).
    public var format: SynthesisFormat
    /// `sample_rate`: 8000, 16000, 22050 (default), 24000, 44100 or 48000 Hz.
    public var sampleRate: Int
    /// `volume`, 0–100 (service default 50).
    public var volume: Int?
    /// `rate` (speech rate), 0.5–2.0 (service default 1.0).
    public var rate: Double?
    /// `pitch`, 0.5–2.0 (service default 1.0).
    public var pitch: Double?
    /// `bit_rate` in kb/s, 6–510, opus only (service default 32).
    public var bitRate: Int?
    /// `enable_ssml` (service default false). With SSML the service takes one continue-task only.
    public var enableSSML: Bool?
    /// `word_timestamp_enabled` (service default false): words with times in the sentence events.
    public var wordTimestampEnabled: Bool?
    /// `seed`, 0–65535 (service default 0).
    public var seed: Int?
    /// `language_hints`: only the first is used by the service; each one of zh en fr de ja ko ru pt th id vi it ms.
    public var languageHints: [String]?
    /// `instruction`: dialect, emotion or style.
    public var instruction: String?
    /// `enable_aigc_tag`, `aigc_propagator`, `aigc_propagate_id`: the AIGC watermark.
    public var enableAIGCTag: Bool?
    public var aigcPropagator: String?
    public var aigcPropagateId: String?
    /// Further `parameters` entries, sent as given (they override the named ones).
    public var additional: [String: JSONValue]

    public static let sampleRates = [8000, 16000, 22050, 24000, 44100, 48000]
    public static let languages = ["zh", "en", "fr", "de", "ja", "ko", "ru", "pt", "th", "id", "vi", "it", "ms"]

    public init(model: String = "cosyvoice-v2", voice: String = "longxiaochun_v2", format: SynthesisFormat = .pcm,
                sampleRate: Int = 22050, volume: Int? = nil, rate: Double? = nil, pitch: Double? = nil,
                bitRate: Int? = nil, enableSSML: Bool? = nil, wordTimestampEnabled: Bool? = nil, seed: Int? = nil,
                languageHints: [String]? = nil, instruction: String? = nil, enableAIGCTag: Bool? = nil,
                aigcPropagator: String? = nil, aigcPropagateId: String? = nil, additional: [String: JSONValue] = [:]) {
        self.model = model
        self.voice = voice
        self.format = format
        self.sampleRate = sampleRate
        self.volume = volume
        self.rate = rate
        self.pitch = pitch
        self.bitRate = bitRate
        self.enableSSML = enableSSML
        self.wordTimestampEnabled = wordTimestampEnabled
        self.seed = seed
        self.languageHints = languageHints
        self.instruction = instruction
        self.enableAIGCTag = enableAIGCTag
        self.aigcPropagator = aigcPropagator
        self.aigcPropagateId = aigcPropagateId
        self.additional = additional
    }

    func validate() throws {
        func fail(_ message: String) -> SpeechStreamingError { SpeechStreamingError(.invalidConfiguration, message) }
        guard !model.isEmpty else { throw fail("model is empty") }
        guard !voice.isEmpty else { throw fail("voice is empty") }
        try ControlCharacters.check([(model, "model"), (voice, "voice")])
        guard Self.sampleRates.contains(sampleRate) else {
            throw fail("sample_rate must be one of 8000, 16000, 22050, 24000, 44100, 48000 Hz, not \(sampleRate)")
        }
        if let volume, !(0...100).contains(volume) { throw fail("volume must be 0–100, not \(volume)") }
        if let rate, !(0.5...2.0).contains(rate) { throw fail("rate must be 0.5–2.0, not \(rate)") }
        if let pitch, !(0.5...2.0).contains(pitch) { throw fail("pitch must be 0.5–2.0, not \(pitch)") }
        if let bitRate, !(6...510).contains(bitRate) { throw fail("bit_rate must be 6–510 kb/s, not \(bitRate)") }
        if let seed, !(0...65535).contains(seed) { throw fail("seed must be 0–65535, not \(seed)") }
        if let hints = languageHints {
            guard !hints.isEmpty else { throw fail("language_hints is empty") }
            for hint in hints where !Self.languages.contains(hint) {
                throw fail("language_hints: \"\(hint)\" is not one of \(Self.languages.joined(separator: " "))")
            }
        }
    }

    /// `payload.parameters` of run-task.
    var jsonObject: [String: Any] {
        var p: [String: Any] = ["text_type": "PlainText", "voice": voice, "format": format.rawValue,
                                "sample_rate": sampleRate]
        p["volume"] = volume
        p["rate"] = rate
        p["pitch"] = pitch
        p["bit_rate"] = bitRate
        p["enable_ssml"] = enableSSML
        p["word_timestamp_enabled"] = wordTimestampEnabled
        p["seed"] = seed
        p["language_hints"] = languageHints
        p["instruction"] = instruction
        p["enable_aigc_tag"] = enableAIGCTag
        p["aigc_propagator"] = aigcPropagator
        p["aigc_propagate_id"] = aigcPropagateId
        for (key, value) in additional { p[key] = value.foundationObject }
        return p
    }
}
