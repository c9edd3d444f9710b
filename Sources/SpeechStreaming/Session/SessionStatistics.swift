import Synchronization

/// Counters of one session, readable from any thread.
public struct SessionStatistics: Sendable, Equatable {
    /// Binary audio frames written to the socket (replayed frames included).
    public var audioFramesSent: Int
    /// Audio bytes written (replayed bytes included).
    public var audioBytesSent: Int
    /// Text (JSON) messages written.
    public var textMessagesSent: Int
    /// `send(audio:)` calls refused because the audio queue was full.
    public var overruns: Int
    /// Reconnection attempts made.
    public var reconnectionAttempts: Int
    /// Audio bytes re-sent after reconnections.
    public var replayedBytes: Int
    /// Audio bytes `send(audio:)` accepted that never went out because the task ended first (an error, an
    /// early task-finished, a cancel): what was queued at that moment.
    public var audioBytesDropped: Int
    /// Events the ``SpeechStreamingSession/events`` sequence dropped because its consumer was more than
    /// ``ConnectionOptions/eventBufferLimit`` events behind (or never read it). The delegate misses none.
    public var streamEventsDropped: Int
    /// Events neither the delegate nor ``SpeechStreamingSession/events`` got, because the delegate was more than
    /// 16,384 events behind the server (never a task's start or end).
    public var eventsDropped: Int
    /// Audio bytes dropped from the replay buffer because more than its capacity went out without a
    /// sentence end (that audio could not be re-sent after a reconnection).
    public var replayDroppedBytes: Int
}

/// The atomics behind ``SessionStatistics``; written on the network thread.
final class StatisticsCounters: Sendable {
    let audioFramesSent = Atomic<Int>(0)
    let audioBytesSent = Atomic<Int>(0)
    let textMessagesSent = Atomic<Int>(0)
    let reconnectionAttempts = Atomic<Int>(0)
    let replayedBytes = Atomic<Int>(0)
    let replayDroppedBytes = Atomic<Int>(0)
    let audioBytesDropped = Atomic<Int>(0)
    let streamEventsDropped = Atomic<Int>(0)
    let eventsDropped = Atomic<Int>(0)

    func snapshot(overruns: Int) -> SessionStatistics {
        SessionStatistics(audioFramesSent: audioFramesSent.load(ordering: .relaxed),
                          audioBytesSent: audioBytesSent.load(ordering: .relaxed),
                          textMessagesSent: textMessagesSent.load(ordering: .relaxed),
                          overruns: overruns,
                          reconnectionAttempts: reconnectionAttempts.load(ordering: .relaxed),
                          replayedBytes: replayedBytes.load(ordering: .relaxed),
                          audioBytesDropped: audioBytesDropped.load(ordering: .relaxed),
                          streamEventsDropped: streamEventsDropped.load(ordering: .relaxed),
                          eventsDropped: eventsDropped.load(ordering: .relaxed),
                          replayDroppedBytes: replayDroppedBytes.load(ordering: .relaxed))
    }
}
