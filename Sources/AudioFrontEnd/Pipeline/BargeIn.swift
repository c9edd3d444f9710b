/// A barge-in decision of the front end (``FrontEndEvent/bargeIn(_:)``): the user talks over the playback.
/// Times are on the mic's timeline (ms from the start of the stream, the processing delay already subtracted).
public struct BargeInDecision: Sendable, Equatable {
    /// When the decision was made: the end of the newest mic frame processed at that moment, ms.
    public var milliseconds: Int
    /// The first frame of the speech that decided it, ms. `milliseconds - speechStartMilliseconds` is the
    /// decision's own latency (the minimum duration plus what the gate held back).
    public var speechStartMilliseconds: Int
    /// Decisions of this kind so far in this stream, from 1.
    public var sequence: Int
    /// A suspicion (``FrontEndConfiguration/bargeInSuspicion``): the user may be talking over the playback —
    /// turn it down for a moment (``FrontEndConfiguration/bargeInSuspicion`` says why), do not stop it. false:
    /// a barge-in (``FrontEndConfiguration/bargeIn``): stop the playback.
    public var isSuspicion: Bool

    public init(milliseconds: Int, speechStartMilliseconds: Int, sequence: Int, isSuspicion: Bool = false) {
        self.milliseconds = milliseconds
        self.speechStartMilliseconds = speechStartMilliseconds
        self.sequence = sequence
        self.isSuspicion = isSuspicion
    }
}

/// Something that decides barge-ins and tells one handler about each: a ``FrontEnd`` (or an ASR session that
/// owns one), which a playback stops on. The handler runs on the source's event thread (a front end's drain
/// thread), before the decision reaches the delegate and the event sequence, and never on an audio thread: it
/// may take locks and allocate, but should return quickly (the events behind it wait).
public protocol BargeInSource: AnyObject, Sendable {
    /// Calls `handler` with each decision from now on; nil removes it. One handler at a time: the last one set
    /// wins. Any thread.
    func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?)
}

extension FrontEnd: BargeInSource {
    /// Calls `handler` on the drain thread with each ``FrontEndEvent/bargeIn(_:)`` decision, before the
    /// delegate and ``events`` get it (so a playback stops as early as possible). Any thread; set it before the
    /// playback starts. The decision needs ``FrontEndConfiguration/bargeIn`` and voice detection on.
    public func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?) {
        drain.bargeInHandler = handler
    }
}
