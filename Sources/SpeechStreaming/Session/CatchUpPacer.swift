/// Paces the audio of a task restarted after a reconnection: the re-sent audio and whatever queued up behind
/// it go out at most ``speed`` times faster than real time, so a reconnection never floods the server
/// with one burst (the services ask for audio at about real-time rate; a 2× catch-up is the burst their
/// guidance tolerates).
///
/// The first frame goes at once; after that a frame goes only while the audio sent so far is less than
/// `speed × time since the restart`. Network thread only; pure arithmetic on explicit times.
struct CatchUpPacer: Equatable {
    let start: Duration
    let speed: Double
    private(set) var sentMilliseconds: Double = 0

    init(start: Duration, speed: Double) {
        self.start = start
        self.speed = speed
    }

    /// How long to wait at `now` before the next frame may go; nil when it may go now.
    func wait(at now: Duration) -> Duration? {
        let elapsed = Self.milliseconds(now - start)
        let budget = speed * elapsed
        guard sentMilliseconds > budget else { return nil }
        return .microseconds(Int64(((sentMilliseconds - budget) / speed * 1000).rounded(.up)))
    }

    /// Counts a frame of `milliseconds` of audio as sent.
    mutating func sent(milliseconds: Double) { sentMilliseconds += milliseconds }

    private static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
