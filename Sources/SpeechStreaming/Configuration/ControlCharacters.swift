/// Values that reach the WebSocket upgrade (an HTTP header line or the request URL) or a protocol header must
/// hold no control characters: a CR/LF in an API key would end the `Authorization` line and send the rest as
/// headers of its own (header injection). Every configuration's `validate()` checks its values here, so every
/// surface (RecognitionSession, NeoNui, the C ABI, `afe stream`) refuses them the same way.
public enum ControlCharacters {
    /// Whether `value` holds a C0 control character (U+0000–U+001F: NUL, tab, CR, LF, …) or DEL (U+007F).
    public static func present(in value: String) -> Bool {
        value.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// Throws ``SpeechStreamingError/Code/invalidConfiguration`` naming `name` (never the value: it may be a
    /// secret) when `value` holds a control character.
    package static func check(_ value: String?, _ name: String) throws {
        guard let value, present(in: value) else { return }
        throw SpeechStreamingError(.invalidConfiguration,
                                   "\(name) contains a control character (CR, LF, tab, …), which would corrupt the HTTP request")
    }

    /// ``check(_:_:)`` for each (value, name) pair.
    package static func check(_ values: [(String?, String)]) throws {
        for (value, name) in values { try check(value, name) }
    }
}
