/// What a session does when its connection drops mid-task (NUI's `enable_reconnection`).
///
/// Off by default. When on, a connection lost while a task runs (server closed, network gone, server not
/// answering) is followed by up to ``maxAttempts`` reconnections with exponential back-off; each new
/// connection starts a new task and first re-sends the audio since the last sentence end, kept in a buffer
/// of ``replayCapacityBytes``, so no sentence is lost. Failures the server decides (task-failed, HTTP
/// 401/403, TLS) are not retried.
public struct ReconnectionPolicy: Sendable, Equatable {
    /// Whether to reconnect at all. Default false.
    public var isEnabled: Bool
    /// Attempts after one drop before giving up with an error. Default 5.
    public var maxAttempts: Int
    /// Wait before the first attempt. Default 0.5 s.
    public var initialDelay: Duration
    /// Factor between consecutive waits. Default 2.
    public var multiplier: Double
    /// Longest wait. Default 8 s.
    public var maxDelay: Duration
    /// Most audio kept for re-sending (bytes of PCM or Ogg pages). Default 1 MiB (32 s of 16 kHz PCM);
    /// older audio is dropped first (counted in ``SessionStatistics/replayDroppedBytes``).
    public var replayCapacityBytes: Int
    /// After a reconnection, the re-sent audio and the audio queued behind it go out at most this many
    /// times faster than real time (the first frame at once), until the queue is empty; then audio flows
    /// as the caller sends it. Default 2: the services ask for about real-time rate, and a 2× catch-up is
    /// the burst their guidance tolerates.
    public var catchUpSpeed: Double

    public init(isEnabled: Bool = false, maxAttempts: Int = 5, initialDelay: Duration = .milliseconds(500),
                multiplier: Double = 2, maxDelay: Duration = .seconds(8), replayCapacityBytes: Int = 1 << 20,
                catchUpSpeed: Double = 2) {
        self.isEnabled = isEnabled
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.replayCapacityBytes = replayCapacityBytes
        self.catchUpSpeed = catchUpSpeed
    }

    /// No reconnection (the default).
    public static let disabled = ReconnectionPolicy()

    /// The wait before attempt `attempt` (1-based): initialDelay × multiplier^(attempt−1), at most maxDelay.
    public func delay(beforeAttempt attempt: Int) -> Duration {
        var delay = initialDelay
        for _ in 1..<max(attempt, 1) {
            delay = delay * multiplier
            if delay >= maxDelay { return maxDelay }
        }
        return min(delay, maxDelay)
    }

    func validate() throws {
        guard maxAttempts >= 1, multiplier >= 1, initialDelay >= .zero, maxDelay >= initialDelay,
              replayCapacityBytes >= 0 else {
            throw SpeechStreamingError(.invalidConfiguration,
                                       "reconnection needs maxAttempts ≥ 1, multiplier ≥ 1 and 0 ≤ initialDelay ≤ maxDelay")
        }
        guard catchUpSpeed >= 1, catchUpSpeed.isFinite else {
            throw SpeechStreamingError(.invalidConfiguration, "reconnection catchUpSpeed must be at least 1")
        }
    }
}
