import Foundation

/// The error a streaming session reports: a code, a message naming the problem, and what the server said.
///
/// Set-up calls throw it (``Code/invalidConfiguration``, ``Code/invalidState``); everything that goes wrong
/// on the wire arrives as ``SpeechEvent/error(_:)``. Messages never contain the API key or token: the
/// session redacts its secrets from every message and every server JSON it copies into an error.
public struct SpeechStreamingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A configuration value outside its documented range, or a URL that cannot be used.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A call made in a state that does not allow it (e.g. `start()` while a task runs).
        public static let invalidState = Code("invalidState")
        /// A call that needs a running task made when none runs: none was started, or the task already ended
        /// (stopped, cancelled, or finished or failed by the server, e.g. ``SpeechStreamingSession/updateContext(_:)``
        /// right after the server ended the task, before its event reached the app).
        public static let taskNotRunning = Code("taskNotRunning")
        /// Nothing listens at the address (TCP connection refused or unreachable).
        public static let connectionRefused = Code("connectionRefused")
        /// The host name does not resolve.
        public static let unknownHost = Code("unknownHost")
        /// The TLS handshake failed, e.g. the server certificate did not verify.
        public static let tlsFailure = Code("tlsFailure")
        /// The server answered the WebSocket upgrade with HTTP 401.
        public static let unauthorized = Code("unauthorized")
        /// The server answered the WebSocket upgrade with HTTP 403.
        public static let forbidden = Code("forbidden")
        /// The WebSocket upgrade failed otherwise (another HTTP status, a bad upgrade response).
        public static let handshakeFailed = Code("handshakeFailed")
        /// The connection could not be set up within the connect timeout.
        public static let connectTimeout = Code("connectTimeout")
        /// The server did not confirm the task start (task-started / TranscriptionStarted) in time.
        public static let startTimeout = Code("startTimeout")
        /// The server did not finish the task (task-finished / TranscriptionCompleted) in time after the stop.
        public static let finishTimeout = Code("finishTimeout")
        /// The server stopped answering, not even WebSocket pings, for the response timeout.
        public static let serverNotResponding = Code("serverNotResponding")
        /// The connection closed while a task was running.
        public static let connectionClosed = Code("connectionClosed")
        /// The server reported the task failed (task-failed / TaskFailed); ``serverCode`` holds its code.
        public static let taskFailed = Code("taskFailed")
        /// The server sent a message that is not the protocol's JSON (including JSON nested deeper than the
        /// 512 levels Foundation's parser takes).
        public static let malformedMessage = Code("malformedMessage")
        /// The server sent a message longer than ``ConnectionOptions/maxMessageBytes``, or a frame header
        /// claiming more (refused from the header, before anything is buffered).
        public static let oversizedMessage = Code("oversizedMessage")
        /// The server broke the protocol's order or framing: it finished the task before the client's
        /// finish-task / StopTranscription (audio not yet sent is counted in the message and in
        /// ``SessionStatistics/audioBytesDropped``), or sent a binary frame (ASR servers send only JSON text).
        public static let protocolViolation = Code("protocolViolation")
        /// Text refused because the synthesis task would hold more than the service takes in one task
        /// (200,000 characters, a CJK character counting 2): nothing of that text was queued.
        public static let textLimit = Code("textLimit")
        /// Any other connection failure.
        public static let connectionFailed = Code("connectionFailed")
    }

    public var code: Code
    /// A sentence naming the problem.
    public var message: String
    /// The server's own error code: DashScope `error_code`, NLS `header.status`.
    public var serverCode: String?
    /// The HTTP status of a failed WebSocket upgrade.
    public var httpStatus: Int?
    /// The server message the error came from, verbatim except for redacted secrets (for `nui_get_all_response`).
    public var rawJSON: String?

    public init(_ code: Code, _ message: String, serverCode: String? = nil, httpStatus: Int? = nil,
                rawJSON: String? = nil) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
        self.httpStatus = httpStatus
        self.rawJSON = rawJSON
    }

    public var description: String {
        var text = "\(message) (\(code)"
        if let serverCode { text += ", server code \(serverCode)" }
        if let httpStatus { text += ", HTTP \(httpStatus)" }
        return text + ")"
    }

    /// A copy with every occurrence of each secret in the message and raw JSON replaced by `***` (``Redactor``).
    func redacting(_ secrets: [String]) -> SpeechStreamingError { Redactor(secrets: secrets).redact(self) }
}
