/// A wait the session's event thread keeps for something that normally arrives as a message (the audio
/// events of what was sent, the tail of a dialog's output), bounded in wall time: it ends when that thing
/// arrives or at ``deadline``, whichever comes first. The event thread never polls: it sleeps until its next
/// message or the earliest deadline of its waits (``EventPump/Outcome/wake(at:)``), then checks them again.
///
/// Wall time (`ContinuousClock`), not the session's ``RecognitionClock``: a test clock may stand still while
/// these must end. Value type; any thread.
struct BoundedWait: Sendable, Equatable {
    /// When the wait began.
    let since: ContinuousClock.Instant
    /// How long it lasts at most.
    let limit: Duration

    init(since: ContinuousClock.Instant = .now, limit: Duration) {
        self.since = since
        self.limit = limit
    }

    /// When the wait ends at the latest.
    var deadline: ContinuousClock.Instant { since + limit }

    /// Whether the deadline has passed at `now`.
    func isOver(at now: ContinuousClock.Instant = .now) -> Bool { now >= deadline }

    /// The earliest of `deadlines` (nil when none is set): when the event thread must wake at the latest.
    static func earliest(_ deadlines: ContinuousClock.Instant?...) -> ContinuousClock.Instant? {
        deadlines.compactMap { $0 }.min()
    }
}
