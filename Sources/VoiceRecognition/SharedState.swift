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
    let lifecycle = Mutex<Lifecycle>(.created)
    let handler = Mutex<(@Sendable (RecognitionEvent) -> Void)?>(nil)

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
