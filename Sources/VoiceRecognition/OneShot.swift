import Synchronization

/// A value that arrives once, for any number of async waiters. Any thread.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, RecognitionError>?
        var waiters: [CheckedContinuation<Value, any Error>] = []
    }

    private let state = Mutex(State())

    /// Sets the result (the first call wins) and resumes every waiter.
    func resolve(_ result: Result<Value, RecognitionError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    /// The result, if it has arrived.
    var peek: Result<Value, RecognitionError>? { state.withLock { $0.result } }

    /// Waits for the result.
    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, RecognitionError>? in
                if state.result == nil { state.waiters.append(continuation) }
                return state.result
            }
            if let ready { continuation.resume(with: ready.mapError { $0 as any Error }) }
        }
    }
}
