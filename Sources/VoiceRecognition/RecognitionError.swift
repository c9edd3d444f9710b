import AudioFrontEnd
import SpeechStreaming

/// Why a recognition session failed or refused a call. Messages never contain the API key or token.
///
/// Set-up and control calls throw it; failures on the way (connection refused, server errors, timeouts)
/// arrive as ``RecognitionEvent/error(_:)`` and end the session. The NUI facade maps each case (and the
/// service error's ``SpeechStreamingError/code``) to its numeric result codes.
public enum RecognitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A configuration value the session cannot use (before any front end or service check).
    case invalidConfiguration(String)
    /// A call made in a state that does not allow it (e.g. `start()` twice, `finish()` before `start()`).
    case invalidState(String)
    /// The front end refused its configuration or a call.
    case frontEnd(AudioFrontEndError)
    /// The streaming client or the service failed (see ``SpeechStreamingError/code``: `connectionRefused`,
    /// `unauthorized`, `taskFailed`, `startTimeout`, ...).
    case service(SpeechStreamingError)

    /// A sentence naming the problem.
    public var message: String {
        switch self {
        case .invalidConfiguration(let message), .invalidState(let message): message
        case .frontEnd(let error): error.message
        case .service(let error): error.description
        }
    }

    /// The server message behind the error, when there is one (redacted).
    public var rawJSON: String? {
        if case .service(let error) = self { return error.rawJSON }
        return nil
    }

    public var description: String { message }
}
