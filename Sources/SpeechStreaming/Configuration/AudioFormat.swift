/// The audio the caller sends.
public enum AudioFormat: String, Sendable, Equatable {
    /// Raw 16-bit little-endian signed mono PCM. The session cuts it into binary frames of
    /// ``ConnectionOptions/frameDuration``.
    case pcm
    /// Ogg Opus (RFC 7845). The caller sends Opus packets (``SpeechStreamingSession/send(opusPacket:durationSamples48k:)``);
    /// the session muxes them into the Ogg stream the service expects (libogg), one page per packet.
    case opus
}

/// One turn of conversation context for DashScope context biasing (`payload.input.context`).
public struct ContextMessage: Sendable, Equatable {
    public enum Role: String, Sendable { case user, assistant }
    public var role: Role
    public var text: String

    public init(role: Role, text: String) {
        self.role = role
        self.text = text
    }

    /// The wire form: user turns carry `input_text`, assistant turns `text`.
    var jsonObject: [String: Any] {
        ["role": role.rawValue,
         "content": [["type": role == .user ? "input_text" : "text", "text": text]]]
    }
}
