import Synchronization

/// An `AsyncStream` that exists only once somebody asks for it, holding at most `limit` unread elements.
///
/// Until the first access of ``stream`` nothing is buffered (``yield(_:)`` returns at once): a sequence nobody
/// reads costs no memory, where one made up front kept its newest `limit` events (their raw JSON, their audio)
/// for the life of the session. Once made, it keeps the newest `limit` unread elements and counts the ones it
/// had to drop (``droppedCount``). After ``finish()`` a first access gets an empty, finished stream.
/// ``prepare()`` makes it up front without handing it out (a reader that comes later misses nothing); until
/// ``stream`` is asked for, what it drops is nobody's loss and ``droppedCount`` stays 0.
///
/// Threads: any; one lock per call (not for an audio thread). Single consumer, like `AsyncStream`.
package final class LazyEventStream<Element: Sendable>: Sendable {
    private struct State {
        var stream: AsyncStream<Element>?
        var continuation: AsyncStream<Element>.Continuation?
        var finished = false
        /// ``stream`` was asked for.
        var taken = false
    }

    private let state = Locked(State())
    private let dropped = Atomic<Int>(0)
    /// Most unread elements kept.
    package let limit: Int

    package init(limit: Int) { self.limit = max(1, limit) }

    /// The stream, made on the first call (later calls return the same one).
    package var stream: AsyncStream<Element> {
        state.withLock { state in
            state.taken = true
            return Self.make(&state, limit: limit)
        }
    }

    /// Makes the stream now, so it buffers from here on, without handing it out.
    package func prepare() { state.withLock { _ = Self.make(&$0, limit: limit) } }

    private static func make(_ state: inout State, limit: Int) -> AsyncStream<Element> {
        if let stream = state.stream { return stream }
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(limit))
        state.stream = stream
        if state.finished { continuation.finish() } else { state.continuation = continuation }
        return stream
    }

    /// Hands `element` to the stream, if one was made. Returns false when the stream dropped an element to take
    /// it (the oldest unread one; counted).
    @discardableResult
    package func yield(_ element: Element) -> Bool {
        guard let continuation = state.withLock({ $0.continuation }) else { return true }
        if case .dropped = continuation.yield(element) {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Ends the stream (after its unread elements); later yields are ignored. Idempotent.
    package func finish() {
        let continuation = state.withLock { state -> AsyncStream<Element>.Continuation? in
            state.finished = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.finish()
    }

    /// Elements the stream dropped because its reader was `limit` behind (0 while nobody asked for it).
    package var droppedCount: Int { state.withLock { $0.taken } ? dropped.load(ordering: .relaxed) : 0 }
}
