import AudioFrontEnd
import SpeechStreaming
import Synchronization

/// The state a ``RecognitionCore`` shares between the control calls, the audio threads, the front end's drain
/// thread and the event thread. Atomics for the audio side; mutexes held only for a load or a store, never
/// while calling out.
final class SharedState: Sendable {
    enum Lifecycle: Sendable, Equatable { case created, running, finishing, ended }

    /// Mic pushes so far (any size above zero); the mic-silence watchdog watches it change. Mic thread.
    let micPushes = Atomic<Int>(0)
    /// Processed bytes the streaming client did not take. Front-end drain thread.
    let audioBytesNotSent = Atomic<Int>(0)
    /// Events dropped because the event thread was too far behind: service events (``AudioForwarder/backlogLimit``),
    /// the front end's audio, levels and echo telemetry (``AudioForwarder/frontEndBacklogLimit``).
    let eventsDropped = Atomic<Int>(0)
    let lifecycle = Mutex<Lifecycle>(.created)
    /// The kept streaming client's counters when a dialog on an engine started (it reports its own share).
    let statisticsBase = Mutex<SessionStatistics?>(nil)
    /// The engine's front-end drop counts and refused bytes when a dialog on it started.
    let dropBase = Mutex(DropBase())

    struct DropBase {
        var counts = DropCounts()
        var micRefusedBytes = 0
        var referenceRefusedBytes = 0
    }
    /// The event handler, boxed: a read copies one class reference and nothing is written back (see
    /// ``HandlerBox``).
    let handler = Mutex<HandlerBox?>(nil)

    /// Moves from `expected` to `next`; returns the state found when it was not `expected`.
    func transition(from expected: Set<Lifecycle>, to next: Lifecycle) -> Lifecycle? {
        lifecycle.withLock { state in
            guard expected.contains(state) else { return state }
            state = next
            return nil
        }
    }

    var state: Lifecycle { lifecycle.withLock { $0 } }
}

/// An immutable holder of the event handler.
///
/// Why a box: storing the closure itself in `Mutex<(@Sendable (RecognitionEvent) -> Void)?>` and reading it with
/// `withLock { $0 }` passes the value `inout` through the generic `withLock`. In optimized builds the closure is
/// reabstracted on the way in (concrete → generic) and the reabstracted value is written back on the way out, so
/// every read wrapped the stored closure in two more thunks: after N events a call went through ~2N nested
/// thunks, and a release build overflowed its stack after ~40 s of audio (about 11,000 thunks deep). A class
/// reference needs no reabstraction, and the `let` inside cannot be written back: every read costs the same.
final class HandlerBox: Sendable {
    let call: @Sendable (RecognitionEvent) -> Void
    init(_ call: @escaping @Sendable (RecognitionEvent) -> Void) { self.call = call }
}
