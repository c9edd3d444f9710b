import Foundation

/// Where a session connects: a parsed ws:// or wss:// URL.
package struct Endpoint: Sendable, Equatable {
    package var usesTLS: Bool
    package var host: String
    package var port: Int
    /// Path and query, starting with "/".
    package var pathAndQuery: String

    /// Parses `url`; `extraQuery` items are appended when the URL has no item of that name yet.
    ///
    /// - Throws: ``SpeechStreamingError/Code/invalidConfiguration`` for anything but ws/wss with a host.
    ///   The message names scheme and host only, never the query (it may hold a token).
    package init(url: String, extraQuery: [(String, String)] = []) throws {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else {
            throw SpeechStreamingError(.invalidConfiguration, "URL is not a ws:// or wss:// URL with a host")
        }
        guard scheme == "ws" || scheme == "wss" else {
            throw SpeechStreamingError(.invalidConfiguration, "URL scheme must be ws or wss, not \(scheme)")
        }
        var items = components.percentEncodedQueryItems ?? []
        for (name, value) in extraQuery where !items.contains(where: { $0.name == name }) {
            let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(
                CharacterSet(charactersIn: "&=+"))) ?? value
            items.append(URLQueryItem(name: name, value: encoded))
        }
        components.percentEncodedQueryItems = items.isEmpty ? nil : items
        usesTLS = scheme == "wss"
        self.host = host
        port = components.port ?? (usesTLS ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// `scheme://host:port` for messages (no path or query).
    package var displayName: String { "\(usesTLS ? "wss" : "ws")://\(host):\(port)" }
}
