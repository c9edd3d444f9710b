/// What a push did. Pushes never block and never throw; they return this.
public struct PushResult: Sendable, Equatable {
    public var status: PushStatus
    /// How much of the pushed data was taken: bytes for byte pushes, samples for sample pushes. What was not
    /// taken was not stored: push it again later.
    public var accepted: Int

    public init(status: PushStatus, accepted: Int) {
        self.status = status
        self.accepted = accepted
    }
}

/// The status of a push.
public enum PushStatus: Sendable, Equatable {
    /// Everything was taken.
    case ok
    /// The ring was full (the consumer of events falls behind): only ``PushResult/accepted`` was taken.
    /// Nothing unprocessed was overwritten.
    case bufferFull
    /// The front end is not running (not started, finished or cancelled): nothing was taken.
    case notRunning
    /// Another thread is inside a push of the same kind (mic pushes must come from one thread at a time, and
    /// reference pushes likewise): nothing was taken.
    case concurrentPush
}
