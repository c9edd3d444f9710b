import Foundation

/// Removes secrets (API keys, tokens, URL query values) from text before it leaves the SDK: log lines, log files,
/// responses and error messages. Thread safe.
final class Redactor: @unchecked Sendable { // `secrets` under `lock`
    private let lock = NSLock()
    private var secrets: [String] = []

    /// Adds secrets (shorter than 4 characters are ignored, as they would mangle ordinary text).
    func add(_ values: [String]) {
        let useful = values.filter { $0.count >= 4 }
        guard !useful.isEmpty else { return }
        lock.withLock {
            for value in useful where !secrets.contains(value) { secrets.append(value) }
            secrets.sort { $0.count > $1.count } // longest first, so a secret containing another is removed whole
        }
    }

    func clear() { lock.withLock { secrets.removeAll() } }

    /// `text` with every secret replaced by `***`.
    func redact(_ text: String) -> String {
        let current = lock.withLock { secrets }
        var result = text
        for secret in current where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "***")
        }
        return result
    }
}
