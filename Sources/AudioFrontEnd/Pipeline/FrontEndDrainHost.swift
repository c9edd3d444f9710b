import Dispatch
import Synchronization
import Threads

/// A thread of the caller's that drains front ends instead of their own drain threads (package: NeoNui's
/// callback thread, one thread per session for the front end's events and the app's callbacks).
///
/// A ``FrontEnd`` made with a host (``FrontEnd/init(configuration:host:)``) starts no drain thread: its
/// ``EventChannel`` signals the host's semaphore, and the host's thread calls ``runRounds()``, which delivers
/// each attached front end's queued events to its delegate and then processes the mic frames a push left
/// behind (``FrontEnd/processMicLeftBehind()``), as one round of the drain thread did. A front end is attached
/// at ``FrontEnd/start()`` and detached once its round has delivered its end (finished, or cancelled and what
/// was queued delivered) or it was released; the host holds it weakly, strongly only during its round.
///
/// Threads: ``signal()`` from any thread, real-time safe (an atomic increment; a futex/ulock wake only when the
/// host waits). ``wait(milliseconds:)`` and ``runRounds()`` on the host's one thread only (the first caller of
/// ``runRounds()`` becomes it). ``runRounds()`` takes one Mutex (the attached list) and allocates nothing once
/// the list has its capacity; it calls the front ends' delegates, so it must not run under a lock a delegate
/// takes.
package final class FrontEndDrainHost: @unchecked Sendable { // the semaphore is thread-safe; the list under its Mutex
    private let semaphore = DispatchSemaphore(value: 0)
    private let attached = Mutex<[Attached]>([])
    private let hostThread = Atomic<UInt>(0)

    /// A class, not a struct: an array of structs holding a weak reference is iterated through a heap
    /// temporary in unspecialized (debug) code, an allocation per round.
    private final class Attached: @unchecked Sendable { // immutable after init; the weak reference is atomic
        weak var frontEnd: FrontEnd?
        let drain: EventDrain
        init(frontEnd: FrontEnd, drain: EventDrain) {
            self.frontEnd = frontEnd
            self.drain = drain
        }
    }

    package init() {}

    /// Wakes the host's thread. Any thread; real-time safe.
    package func signal() { semaphore.signal() }

    /// Waits until signalled or `milliseconds` pass (monotonic clock). Host thread.
    package func wait(milliseconds: Int) {
        if semaphore.wait(timeout: .now() + .milliseconds(milliseconds)) == .timedOut {
            timedOutWaits.add(1, ordering: .relaxed)
        }
    }

    /// Waits until signalled: with a front end attached at most `milliseconds` (a safety net, as the own drain
    /// thread's), with none without a timeout, so an idle host (e.g. a TTS instance's callback thread) never
    /// wakes on its own. No wake-up is lost: ``attach(_:drain:)`` signals after adding the front end. Host thread.
    package func waitForWork(milliseconds: Int) {
        if hasAttached { wait(milliseconds: milliseconds) } else { semaphore.wait() }
    }

    /// Waits that ended by their timeout rather than a signal (idle wake-ups). Any thread.
    package var timedOutWaitCount: Int { timedOutWaits.load(ordering: .relaxed) }
    private let timedOutWaits = Atomic<Int>(0)

    /// Whether the caller is the host's thread (the one that called ``runRounds()``). Any thread; real-time safe.
    package var isHostThread: Bool { hostThread.load(ordering: .acquiring) == currentThreadKey() }

    /// Whether a front end is attached (started and not yet at its end). Any thread.
    package var hasAttached: Bool { attached.withLock { !$0.isEmpty } }

    /// One drain round of every attached front end, in the order they were started; detaches those that reached
    /// their end. Host thread only.
    package func runRounds() {
        hostThread.store(currentThreadKey(), ordering: .releasing)
        let list = attached.withLock { $0 } // a copy of a few entries: a retain, no allocation
        guard !list.isEmpty else { return }
        var ended = false
        for index in 0..<list.count { // not `for entry in list`: unspecialized (debug), its iterator allocates
            let entry = list[index]
            guard let frontEnd = entry.frontEnd else {
                entry.drain.endHosted()
                ended = true
                continue
            }
            if entry.drain.hostedRound(owner: frontEnd) { ended = true }
        }
        if ended { attached.withLock { $0.removeAll { $0.frontEnd == nil || $0.drain.hostedDone } } }
    }

    func attach(_ frontEnd: FrontEnd, drain: EventDrain) {
        attached.withLock {
            $0.reserveCapacity(4)
            $0.append(Attached(frontEnd: frontEnd, drain: drain))
        }
        signal()
    }
}
