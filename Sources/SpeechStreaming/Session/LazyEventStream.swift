import Synchronization
import Threads

/// An `AsyncStream` that exists only once somebody asks for it, holding at most `limit` unread elements.
///
/// Until the first access of ``stream`` nothing is buffered (``yield(_:)`` returns at once): a sequence nobody
/// reads costs no memory, where one made up front kept its newest `limit` events (their raw JSON, their audio)
/// for the life of the session. Once made, it keeps the newest `limit` unread elements and counts the ones it
/// had to drop (``droppedCount``). After ``finish()`` a first access gets an empty, finished stream.
/// ``prepare()`` buffers from then on without handing the stream out: a reader that comes later gets the newest
/// ``keptBeforeAccess`` elements (all of them while fewer came); until ``stream`` is asked for, what it drops is
/// nobody's loss and ``droppedCount`` stays 0.
///
/// Threads: any; one lock per call (not for an audio thread). Single consumer, like `AsyncStream`.
package final class LazyEventStream<Element: Sendable>: Sendable {
    private struct State {
        var stream: AsyncStream<Element>?
        var continuation: AsyncStream<Element>.Continuation?
        var finished = false
        /// ``stream`` was asked for.
        var taken = false
        /// Prepared and not yet asked for: the newest ``keptBeforeAccess`` elements (from `pendingHead` on),
        /// handed to the stream when it is made.
        var pending: [Element]?
        var pendingHead = 0
    }

    private let state = Locked(State())
    private let dropped = Atomic<Int>(0)
    /// Most unread elements kept.
    package let limit: Int

    /// Most elements a prepared stream keeps before anybody asks for it (the newest; the others are nobody's
    /// loss, uncounted).
    package let keptBeforeAccess: Int

    package init(limit: Int, keptBeforeAccess: Int? = nil) {
        self.limit = max(1, limit)
        self.keptBeforeAccess = max(1, min(self.limit, keptBeforeAccess ?? limit))
    }

    /// The stream, made on the first call (later calls return the same one).
    package var stream: AsyncStream<Element> {
        state.withLock { state in
            state.taken = true
            return Self.make(&state, limit: limit)
        }
    }

    /// Makes the stream now, so it buffers from here on, without handing it out.
    /// Until then it keeps at most ``keptBeforeAccess`` elements (a session's sequence nobody reads costs that, not
    /// `limit`: 4096 unread partial results with their raw JSON were ~4 MiB an hour into a session).
    package func prepare() {
        state.withLock { state in
            if state.stream == nil, state.pending == nil, !state.finished { state.pending = [] }
        }
    }

    private static func make(_ state: inout State, limit: Int) -> AsyncStream<Element> {
        if let stream = state.stream { return stream }
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(limit))
        state.stream = stream
        if let pending = state.pending {
            for element in pending[state.pendingHead...] { continuation.yield(element) }
            state.pending = nil
            state.pendingHead = 0
        }
        if state.finished { continuation.finish() } else { state.continuation = continuation }
        return stream
    }

    /// Hands `element` to the stream, if one was made. Returns false when the stream dropped an element to take
    /// it (the oldest unread one; counted).
    @discardableResult
    package func yield(_ element: Element) -> Bool {
        let kept = keptBeforeAccess
        let continuation = state.withLock { state -> AsyncStream<Element>.Continuation? in
            if state.continuation == nil, !state.finished, state.pending != nil {
                state.pending!.append(element)
                if state.pending!.count - state.pendingHead > kept {
                    state.pendingHead += 1
                    dropped.add(1, ordering: .relaxed) // counted once somebody asks (``droppedCount``)
                }
                if state.pendingHead >= kept { // compact: at most 2 × kept elements held
                    state.pending!.removeFirst(state.pendingHead)
                    state.pendingHead = 0
                }
            }
            return state.continuation
        }
        guard let continuation else { return true }
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
