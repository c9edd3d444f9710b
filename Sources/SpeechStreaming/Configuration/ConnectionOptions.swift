import Foundation

/// Transport, timeout and robustness settings shared by both protocols.
public struct ConnectionOptions: Sendable, Equatable {
    /// A PEM file of extra CA certificates trusted besides the system store (e.g. a test CA). Server
    /// certificates are always verified, host name included; there is no option to turn that off.
    public var caFilePath: String?
    /// Most time from connect to an open WebSocket. Default 10 s.
    public var connectTimeout: Duration
    /// Most time from the start message to the server's task-started / TranscriptionStarted. Default 10 s
    /// (what the official samples use).
    public var startTimeout: Duration
    /// Most time from finish-task / StopTranscription to task-finished / TranscriptionCompleted. Default 10 s.
    public var finishTimeout: Duration
    /// While a task runs and nothing arrives for this long, send a WebSocket ping. Default 5 s.
    public var pingInterval: Duration
    /// While a task runs and nothing at all (not even a pong) arrives for this long, the server counts as
    /// not responding. Default 15 s.
    public var responseTimeout: Duration
    /// Longest server message accepted; a longer one is an error. Default 1 MiB.
    public var maxMessageBytes: Int
    /// Audio queue between the caller's thread and the network thread, in bytes (rounded up to a power
    /// of two). Default 512 KiB: 16 s of 16 kHz PCM, enough to cover the start and a reconnection.
    public var audioQueueCapacityBytes: Int
    /// PCM goes out in binary frames of this much audio. Default 100 ms (3200 bytes at 16 kHz), as the
    /// services recommend; Ogg pages are grouped into frames of about this duration.
    public var frameDuration: Duration
    /// What to do when the connection drops mid-task. Default ``ReconnectionPolicy/disabled``.
    public var reconnection: ReconnectionPolicy
    /// The `User-Agent` header.
    public var userAgent: String
    /// Most events ``SpeechStreamingSession/events`` holds for a consumer that has not read them yet: beyond
    /// it the oldest are dropped and counted (``SessionStatistics/streamEventsDropped``), so a sequence nobody
    /// reads costs a bounded amount of memory. 0: the sequence is not fed at all (for delegate-only use; it
    /// only finishes on close). The delegate always gets every event. Default 4096.
    public var eventBufferLimit: Int = 4096
    /// A connection kept after a task (DashScope) that has been idle this long is closed and a new one made at
    /// the next start, rather than racing the server's own idle close (DashScope: 60 s after a task ends).
    /// A kept connection the server did close is replaced at the next start without an error either way.
    /// Default 50 s.
    public var keptConnectionIdleLimit: Duration = .seconds(50)

    public init(caFilePath: String? = nil, connectTimeout: Duration = .seconds(10),
                startTimeout: Duration = .seconds(10), finishTimeout: Duration = .seconds(10),
                pingInterval: Duration = .seconds(5), responseTimeout: Duration = .seconds(15),
                maxMessageBytes: Int = 1 << 20, audioQueueCapacityBytes: Int = 1 << 19,
                frameDuration: Duration = .milliseconds(100), reconnection: ReconnectionPolicy = .disabled,
                userAgent: String = "AudioFrontEnd-SpeechStreaming/1.0") {
        self.caFilePath = caFilePath
        self.connectTimeout = connectTimeout
        self.startTimeout = startTimeout
        self.finishTimeout = finishTimeout
        self.pingInterval = pingInterval
        self.responseTimeout = responseTimeout
        self.maxMessageBytes = maxMessageBytes
        self.audioQueueCapacityBytes = audioQueueCapacityBytes
        self.frameDuration = frameDuration
        self.reconnection = reconnection
        self.userAgent = userAgent
    }

    package func validate() throws {
        func positive(_ d: Duration, _ name: String) throws {
            guard d > .zero else { throw SpeechStreamingError(.invalidConfiguration, "\(name) must be positive") }
        }
        try ControlCharacters.check(userAgent, "userAgent")
        try positive(connectTimeout, "connectTimeout")
        try positive(startTimeout, "startTimeout")
        try positive(finishTimeout, "finishTimeout")
        try positive(pingInterval, "pingInterval")
        try positive(responseTimeout, "responseTimeout")
        try positive(keptConnectionIdleLimit, "keptConnectionIdleLimit")
        guard frameDuration >= .milliseconds(10), frameDuration <= .seconds(1) else {
            throw SpeechStreamingError(.invalidConfiguration, "frameDuration must be 10 ms to 1 s")
        }
        guard maxMessageBytes >= 1024 else {
            throw SpeechStreamingError(.invalidConfiguration, "maxMessageBytes must be at least 1024")
        }
        guard (0...(1 << 20)).contains(eventBufferLimit) else {
            throw SpeechStreamingError(.invalidConfiguration, "eventBufferLimit must be 0 to 1048576")
        }
        guard (4096...(1 << 28)).contains(audioQueueCapacityBytes) else {
            throw SpeechStreamingError(.invalidConfiguration, "audioQueueCapacityBytes must be 4 KiB to 256 MiB")
        }
        if let path = caFilePath, !FileManager.default.isReadableFile(atPath: path) {
            throw SpeechStreamingError(.invalidConfiguration, "CA file \(path) cannot be read")
        }
        try reconnection.validate()
    }
}
