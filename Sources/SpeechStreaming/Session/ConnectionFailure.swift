/// Turns libwebsockets' connection-error reasons and the upgrade's HTTP status into typed errors.
///
/// lws 4.1 reports a failure before the WebSocket opens as a short text (`HS: ws upgrade unauthorized`,
/// `Unable to connect`, `ipv6 lws_getaddrinfo46 failed`, `connect SSL err …`, `server's cert didn't look
/// good …`) plus, for an upgrade answered without 101, the HTTP status. This is the one place that maps them.
package enum ConnectionFailure {
    package static func error(reason: String, httpStatus: Int, endpoint: Endpoint) -> SpeechStreamingError {
        let place = endpoint.displayName
        switch httpStatus {
        case 401: return SpeechStreamingError(.unauthorized, "\(place) refused the credentials (HTTP 401)", httpStatus: 401)
        case 403: return SpeechStreamingError(.forbidden, "\(place) refused access (HTTP 403)", httpStatus: 403)
        case 100..<600 where httpStatus != 101:
            return SpeechStreamingError(.handshakeFailed, "\(place) answered the WebSocket upgrade with HTTP \(httpStatus)",
                                        httpStatus: httpStatus)
        default: break
        }
        let lower = reason.lowercased()
        if lower.contains("unauthorized") {
            return SpeechStreamingError(.unauthorized, "\(place) refused the credentials (\(reason))", httpStatus: 401)
        }
        if lower.contains("getaddrinfo") || lower.contains("dns") {
            return SpeechStreamingError(.unknownHost, "cannot resolve \(endpoint.host) (\(reason))")
        }
        if endpoint.usesTLS && ["ssl", "tls", "cert", "x509"].contains(where: lower.contains) {
            return SpeechStreamingError(.tlsFailure, "TLS with \(place) failed: \(reason)")
        }
        if lower.contains("unable to connect") || lower.contains("refused") {
            return SpeechStreamingError(.connectionRefused, "cannot connect to \(place) (\(reason))")
        }
        if lower.hasPrefix("hs:") {
            return SpeechStreamingError(.handshakeFailed, "WebSocket upgrade with \(place) failed (\(reason))")
        }
        return SpeechStreamingError(.connectionFailed, "connection to \(place) failed (\(reason))")
    }
}
