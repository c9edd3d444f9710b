import Foundation

/// The one place secrets are removed from text before it leaves the SDK: every event, result text, raw server
/// JSON and error a session reports (so RecognitionSession, its summary, NeoNui's callbacks, summary and log,
/// the C ABI and `afe` all see redacted text), and every URL shown to a person.
///
/// It knows two kinds of secret: values (API keys, tokens, the secrets of a URL) replaced by `***` wherever they
/// occur, longest first; and the shape of a URL, whose userinfo, fragment and secret-named query values
/// (``isSecretQueryName(_:)``: token, key, signature, … and Tingwu's `mc`) ``redact(url:)`` masks without
/// knowing them. Values shorter than 4 characters are ignored (they would mangle ordinary text).
///
/// Thread safe (the values under a lock); not real-time safe (Foundation string search).
public final class Redactor: @unchecked Sendable { // `secrets` under `lock`
    private let lock = NSLock()
    private var secrets: [String] = []

    /// A redactor that knows `secrets` (and nothing of any URL yet).
    public init(secrets: [String] = []) { add(secrets) }

    /// Adds secret values (shorter than 4 characters are ignored).
    public func add(_ values: [String]) {
        let useful = values.filter { $0.count >= 4 }
        guard !useful.isEmpty else { return }
        lock.withLock {
            for value in useful where !secrets.contains(value) { secrets.append(value) }
            secrets.sort { $0.count > $1.count } // longest first, so a secret containing another is removed whole
        }
    }

    /// Adds the secrets a URL carries (``secrets(inURL:)``).
    public func add(url: String) { add(Self.secrets(inURL: url)) }

    /// Forgets every secret.
    public func clear() { lock.withLock { secrets.removeAll() } }

    /// `text` with every known secret replaced by `***`.
    public func redact(_ text: String) -> String {
        let current = lock.withLock { secrets }
        var result = text
        for secret in current where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }

    /// `url` as it may be shown: userinfo, fragment and the values of secret-named query items replaced by
    /// `***`, and any known secret elsewhere too. Text that does not parse as a URL is only ``redact(_:)``-ed.
    public func redact(url: String) -> String {
        guard var components = URLComponents(string: url), components.scheme != nil else { return redact(url) }
        if components.percentEncodedUser != nil { components.percentEncodedUser = "***" }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
        if components.percentEncodedFragment != nil { components.percentEncodedFragment = "***" }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                Self.isSecretQueryName(item.name) && item.value != nil ? URLQueryItem(name: item.name, value: "***") : item
            }
        }
        return redact(components.string ?? url)
    }

    /// Whether a query item of this name carries a credential: names containing token, key, sig(nature), secret,
    /// pass(word), auth or credential (any case), and Tingwu's meeting credential `mc`.
    public static func isSecretQueryName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "mc" || ["token", "key", "sig", "secret", "pass", "auth", "credential"].contains { lower.contains($0) }
    }

    /// The secrets of a URL: userinfo (user and password), fragment, and the values of secret-named query items,
    /// each as written and percent-decoded.
    public static func secrets(inURL url: String) -> [String] {
        guard let components = URLComponents(string: url) else { return [] }
        var list = [components.percentEncodedUser, components.percentEncodedPassword, components.percentEncodedFragment,
                    components.user, components.password, components.fragment].compactMap { $0 }
        for item in components.percentEncodedQueryItems ?? [] where isSecretQueryName(item.name) {
            if let value = item.value { list += [value, value.removingPercentEncoding ?? value] }
        }
        return list
    }

    /// `event` with its texts, raw JSON and errors redacted.
    public func redact(_ event: SpeechEvent) -> SpeechEvent {
        switch event {
        case .started(var e): e.rawJSON = redact(e.rawJSON); return .started(e)
        case .sentenceStart(var e): e.rawJSON = redact(e.rawJSON); return .sentenceStart(e)
        case .partialResult(let e): return .partialResult(redact(e))
        case .sentenceEnd(let e): return .sentenceEnd(redact(e))
        case .translation(var e):
            e.text = redact(e.text)
            e.rawJSON = redact(e.rawJSON)
            return .translation(e)
        case .completed(var e): e.rawJSON = redact(e.rawJSON); return .completed(e)
        case .reconnecting(var e): e.cause = redact(e.cause); return .reconnecting(e)
        case .error(let e): return .error(redact(e))
        }
    }

    /// `result` with its text and raw JSON redacted.
    public func redact(_ result: RecognitionResult) -> RecognitionResult {
        var copy = result
        copy.text = redact(result.text)
        copy.rawJSON = redact(result.rawJSON)
        return copy
    }

    /// `error` with its message, server code and raw JSON redacted.
    public func redact(_ error: SpeechStreamingError) -> SpeechStreamingError {
        var copy = error
        copy.message = redact(error.message)
        copy.serverCode = error.serverCode.map { redact($0) }
        copy.rawJSON = error.rawJSON.map { redact($0) }
        return copy
    }
}
