import Synchronization
import Threads

/// The caller-side task state shared by the session's public calls and its network thread.
///
/// Epochs: each task gets an odd number; audio records carry the epoch they were queued under, so the
/// network thread can tell a task's audio from stale audio of an earlier one. `audioEpoch` is what
/// `send(audio:)` tags with: odd while the task takes audio, even after stop, failure or cancel.
final class SessionControl: @unchecked Sendable { // lastEpoch only under state's lock
    enum State: Equatable {
        case idle
        case active(epoch: UInt32)
        case closed
    }

    let state = Locked<State>(.idle)
    /// Read by the producer on every `send(audio:)`; written under `state`'s lock.
    let audioEpoch = Atomic<UInt32>(0)
    private var lastEpoch: UInt32 = 0 // under `state`'s lock

    /// Begins a task: returns its epoch, or throws when a task runs or the session is closed.
    func beginTask() throws(SpeechStreamingError) -> UInt32 {
        try state.withLock { state throws(SpeechStreamingError) -> UInt32 in
            switch state {
            case .closed: throw SpeechStreamingError(.invalidState, "the session is closed")
            case .active: throw SpeechStreamingError(.invalidState, "a task is already running; stop it first")
            case .idle: break
            }
            lastEpoch = (lastEpoch &+ 2) | 1
            let epoch = lastEpoch
            state = .active(epoch: epoch)
            audioEpoch.store(epoch, ordering: .releasing)
            return epoch
        }
    }

    /// Stops taking audio for the running task (the task itself continues until the server finishes it).
    func stopAudio() -> Bool {
        state.withLock { state in
            guard case .active(let epoch) = state else { return false }
            _ = audioEpoch.compareExchange(expected: epoch, desired: epoch &+ 1, ordering: .acquiringAndReleasing)
            return true
        }
    }

    /// The task with `epoch` is over (network thread), or (`epoch` nil) whatever runs is abandoned.
    func endTask(epoch: UInt32?, closing: Bool = false) {
        state.withLock { state in
            if case .active(let current) = state, epoch == nil || epoch == current {
                _ = audioEpoch.compareExchange(expected: current, desired: current &+ 1, ordering: .acquiringAndReleasing)
                state = .idle
            }
            if closing { state = .closed }
        }
    }

    var isActive: Bool { state.withLock { if case .active = $0 { true } else { false } } }
}
