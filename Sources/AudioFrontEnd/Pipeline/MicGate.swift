import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The mic side's gate: admits one app push at a time (the mic ring's producer) and serializes the processing
/// (the mic ring's consumer, the converter, the stages, the event rings' producer) between that push and the
/// drain thread. Real-time safe on the push side: compare-exchanges only, never a wait.
///
/// Why two roles: a push stops processing when the event rings are full and leaves its frames in the mic ring.
/// In a front end that outlives dialogs those frames waited for the next push and could miss a dialog's end, so
/// the drain thread, once it has freed room, processes what a push left behind (``FrontEnd/processMicLeftBehind()``).
/// It takes the processing only when no push is inside and work was left (``takeLeftBehind()``: one
/// compare-exchange, never blocking), stops after the frame in hand when a push comes in, and a push that finds
/// it processing does not fail: it writes its samples into the mic ring (its own, as producer), takes the
/// processing over as soon as the drain lets it go (``takeProcessing()``), and otherwise leaves the work
/// flagged for the drain and wakes it. The state is one atomic: every change is a read-modify-write with acquire
/// on taking and release on letting go, so whoever processes next sees everything the last one did.
final class MicGate: Sendable {
    private static let pushInside = 1
    private static let processing = 2
    /// Work is left in the mic ring or the frame accumulator for whoever processes next.
    private static let leftBehind = 4
    private static let closed = 8
    private let state = Atomic<Int>(0)

    /// How a push entered.
    enum Entry: Equatable {
        /// Refused (``PushStatus/notRunning`` or ``PushStatus/concurrentPush``).
        case refused(PushStatus)
        /// The push processes (it holds the processing).
        case processing
        /// The drain thread is processing: the push writes into the mic ring and tries ``takeProcessing()``.
        case handingOff
    }

    /// An app push enters. Push thread; real-time safe (bounded retries of a compare-exchange that fails only
    /// when the drain thread changed the state in between).
    func enter() -> Entry {
        var current = state.load(ordering: .relaxed)
        while true {
            if current & Self.closed != 0 { return .refused(.notRunning) }
            if current & Self.pushInside != 0 { return .refused(.concurrentPush) }
            let takes = current & Self.processing == 0
            let desired = takes ? Self.pushInside | Self.processing : current | Self.pushInside
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .acquiring)
            if exchanged { return takes ? .processing : .handingOff }
            current = original
        }
    }

    /// A push that entered handing off takes the processing if the drain thread let it go. Push thread (inside);
    /// real-time safe.
    func takeProcessing() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current & Self.processing == 0 {
            let desired = (current | Self.processing) & ~Self.leftBehind
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .acquiring)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// The push leaves. `processed`: it held the processing; `workLeft`: then whether it left frames behind (the
    /// event rings were full). A push that did not hold the processing always flags work. Returns whether work is
    /// flagged for the drain thread now (the caller wakes it). Push thread; real-time safe.
    func leave(processed: Bool, workLeft: Bool) -> Bool {
        let flag = (!processed || workLeft) ? Self.leftBehind : 0
        let clear = Self.pushInside | (processed ? Self.processing : 0)
        var current = state.load(ordering: .relaxed)
        while true {
            let desired = (current & ~clear) | flag
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .releasing)
            if exchanged { return desired & Self.leftBehind != 0 }
            current = original
        }
    }

    /// The drain thread takes the processing when work was left behind and no push is inside (nor the gate
    /// closed). One compare-exchange; never waits. Drain thread.
    func takeLeftBehind() -> Bool {
        state.compareExchange(expected: Self.leftBehind, desired: Self.processing, ordering: .acquiring).exchanged
    }

    /// Whether an app push is inside (the drain thread, processing, stops after the frame in hand). Any thread.
    var hasPushInside: Bool { state.load(ordering: .relaxed) & Self.pushInside != 0 }

    /// The drain thread lets the processing go; `workLeft`: it left frames behind (a push came in, or no room).
    /// A flag a push set meanwhile stays. Drain thread.
    func releaseProcessing(workLeft: Bool) {
        var current = state.load(ordering: .relaxed)
        while true {
            let desired = (current & ~Self.processing) | (workLeft ? Self.leftBehind : 0)
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired,
                                                              ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Closes the gate for good once neither a push nor the drain thread is inside; the processing is then the
    /// caller's (``FrontEnd/finish()``). Control thread; may spin briefly.
    func close() {
        var current = state.load(ordering: .acquiring)
        while true {
            if current & Self.closed != 0 { return }
            if current & (Self.pushInside | Self.processing) != 0 {
                sched_yield()
                current = state.load(ordering: .acquiring)
                continue
            }
            let (exchanged, original) = state.compareExchange(expected: current, desired: Self.closed,
                                                              ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}
