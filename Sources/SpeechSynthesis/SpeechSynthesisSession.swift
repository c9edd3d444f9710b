import SpeechStreaming
import Threads

/// A streaming speech-synthesis client for DashScope CosyVoice / Qwen-Audio-TTS (the task protocol at
/// `/api-ws/v1/inference`), over SpeechStreaming's libwebsockets transport (TLS verified, the same timeouts,
/// typed ``SpeechStreamingError``s, one ``Redactor``).
///
/// Lifecycle of a task: ``start()`` (run-task; returns once task-started arrived) or ``requestStart()`` (returns
/// at once), then ``send(text:)`` any number of times (continue-task; text above 20,000 characters is cut into
/// several), then ``finish()`` (finish-task; returns the task-finished) or ``requestFinish()``. Audio arrives as
/// ``SynthesisEvent/audio(_:)`` events in between. After `.completed` or `.error` the next task may start; the
/// connection stays open between tasks (the service closes it after 60 s without a task): a task started after
/// ``ConnectionOptions/keptConnectionIdleLimit`` (50 s) connects again, and one whose kept connection turns out
/// closed before task-started connects again once, without an error. ``cancel()`` drops the connection at once:
/// no more events for the task. ``close()`` ends the session.
///
/// The 23 s gap: the service fails a task that gets no text for 23 s (until finish-task). This client sends
/// nothing on its own to prevent it: the server's task-failed reaches the app as ``SynthesisEvent/error(_:)``
/// with ``SpeechStreamingError/Code/taskFailed``, server code and message ("request timeout after 23 seconds.").
///
/// Threads: every call from any thread, the delegate included. Networking runs on a private thread; events arrive
/// in order on a private serial queue, through the delegate and ``events``. Not real-time safe (locks, allocation).
/// Memory: each queue holds at most a bounded number of events (``SynthesisDelivery/backlogLimit`` for the
/// delegate, ``ConnectionOptions/eventBufferLimit`` for ``events``); drops are counted in ``statistics``.
public final class SpeechSynthesisSession: @unchecked Sendable { // immutable references to thread-safe parts
    /// Every event in order, for one consumer; finishes when the session closes. Made on the first access
    /// (events before it are not kept: take it before the task starts; a session whose stream nobody asks for
    /// keeps no events, no audio), it then holds at most ``ConnectionOptions/eventBufferLimit`` unread events.
    /// Any thread.
    public var events: AsyncStream<SynthesisEvent> { delivery.events }

    private let engine: SynthesisEngine
    private let delivery: SynthesisDelivery
    /// From a task's start until its last event: another start is refused.
    private let active = Locked<UInt64?>(nil)
    private let state = Locked(State())

    /// Each task's part is keyed by its generation, so a call that saw an earlier task (ended meanwhile, and
    /// another started from a second thread) cannot touch the new one.
    private struct State {
        var closed = false
        /// The task whose finish was requested: it takes no more text.
        var finishing: UInt64?
        /// The task whose characters are counted, and its text so far (the service's count).
        var counted: UInt64 = 0
        var characters = 0
    }

    /// Creates the session (no connection yet). Not real-time safe (starts a thread, creates the lws context).
    /// - Throws: ``SpeechStreamingError/Code/invalidConfiguration`` naming the bad value.
    public init(configuration: SynthesisConfiguration) throws {
        let wire = try SynthesisProtocol(configuration)
        delivery = SynthesisDelivery(streamLimit: configuration.connection.eventBufferLimit,
                                     redactor: Redactor(secrets: wire.secrets))
        engine = try SynthesisEngine(wire: wire, delivery: delivery, active: active)
        delivery.attach(self)
    }

    deinit { close() }

    /// Receives every event on the delivery queue. Held weakly.
    public var delegate: (any SpeechSynthesisDelegate)? {
        get { delivery.delegate }
        set { delivery.delegate = newValue }
    }

    /// Starts a task (connects if needed, sends run-task) and returns at once; ``SynthesisEvent/started(_:)`` or
    /// ``SynthesisEvent/error(_:)`` follows. Text sent before task-started waits and goes out after it.
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` while a task runs or after ``close()``.
    public func requestStart() throws { try begin(text: nil) }

    /// Starts a one-shot task: run-task, all of `text` and finish-task are queued in this one call and go out in
    /// order; returns at once. The events follow as for ``requestStart()``, ending in ``SynthesisEvent/completed(_:)``
    /// or ``SynthesisEvent/error(_:)`` — a task the server refuses at once is reported there, never thrown here
    /// (text sent after ``requestStart()`` can find such a task already ended).
    /// - Throws: invalidState as ``requestStart()``; ``SpeechStreamingError/Code/textLimit`` when `text` exceeds
    ///   ``taskCharacterLimit`` (nothing started).
    public func requestSynthesis(of text: String) throws { try begin(text: text) }

    private func begin(text: String?) throws(SpeechStreamingError) {
        let count = text.map { TextSplitter.count(Substring($0)) } ?? 0
        guard count <= Self.taskCharacterLimit else { throw Self.beyondLimit(count, after: 0) }
        guard !state.withLock({ $0.closed }) else { throw SpeechStreamingError(.invalidState, "the session is closed") }
        // The task's state and its start are in place before another thread can see it running (a send from there
        // must find its count, and its text must reach the engine after the start).
        let generation = try active.withLock { running throws(SpeechStreamingError) -> UInt64 in
            guard running == nil else { throw SpeechStreamingError(.invalidState, "a synthesis task is running") }
            let generation = delivery.nextGeneration()
            state.withLock {
                if text != nil { $0.finishing = generation }
                $0.counted = generation
                $0.characters = count
            }
            engine.post(.start(generation: generation))
            running = generation
            return generation
        }
        guard let text else { return }
        for piece in TextSplitter.split(text) where !piece.isEmpty { engine.post(.text(piece, generation: generation)) }
        engine.post(.finish(generation: generation))
    }

    /// Starts a task and waits for task-started.
    /// - Throws: ``SpeechStreamingError``: invalidState as ``requestStart()``, or the task's error (connection,
    ///   HTTP 401, start timeout, task-failed such as an unknown voice, ...).
    @discardableResult
    public func start() async throws -> SynthesisStarted {
        try await withCheckedThrowingContinuation { continuation in
            delivery.wait(.started(continuation))
            do { try requestStart() } catch { delivery.failWaiters(error as! SpeechStreamingError) }
        }
    }

    /// Queues text for the running task: one continue-task, or several for text above 20,000 characters (a CJK
    /// character counting 2, as the service counts), each cut after a sentence end or white space. A task takes
    /// at most ``taskCharacterLimit`` characters in all (the service's limit; it also bounds what waits unsent
    /// for an app that sends faster than the network goes).
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` when no task runs or finish was requested. A task
    ///   can end on its own at any time after ``requestStart()`` (a refused connection fails it at once): then this
    ///   throws invalidState, and the task's ``SynthesisEvent/error(_:)`` is on its way.
    ///   ``SpeechStreamingError/Code/textLimit`` when the task's text would exceed ``taskCharacterLimit``: nothing
    ///   of `text` was queued, the task goes on.
    public func send(text: String) throws {
        guard let generation = active.withLock({ $0 }) else {
            throw SpeechStreamingError(.invalidState, "no synthesis task is running")
        }
        let count = TextSplitter.count(Substring(text))
        try state.withLock { state throws(SpeechStreamingError) in
            guard state.finishing != generation else { throw SpeechStreamingError(.invalidState, "finish was requested: no more text") }
            let characters = state.counted == generation ? state.characters : 0
            guard characters + count <= Self.taskCharacterLimit else { throw Self.beyondLimit(count, after: characters) }
            state.counted = generation
            state.characters = characters + count
        }
        for piece in TextSplitter.split(text) where !piece.isEmpty { engine.post(.text(piece, generation: generation)) }
    }

    /// The most text one task takes, in the service's count (a CJK character counts 2): 200,000 characters.
    public static let taskCharacterLimit = 200_000

    private static func beyondLimit(_ count: Int, after characters: Int) -> SpeechStreamingError {
        SpeechStreamingError(.textLimit, "\(count) more characters would take the task to \(characters + count), "
                             + "beyond the service's \(taskCharacterLimit) per task")
    }

    /// Ends the task's text (finish-task, after the queued text) and returns at once; the server synthesizes
    /// what it holds, then ``SynthesisEvent/completed(_:)`` follows. Does nothing when no task runs.
    public func requestFinish() {
        guard let generation = active.withLock({ $0 }) else { return }
        state.withLock { $0.finishing = generation }
        engine.post(.finish(generation: generation))
    }

    /// Ends the task's text and waits for task-finished (all audio delivered, bounded by the finish timeout).
    /// - Throws: the task's ``SpeechStreamingError``, or invalidState when no task runs.
    @discardableResult
    public func finish() async throws -> SynthesisCompleted {
        try await withCheckedThrowingContinuation { continuation in
            delivery.wait(.completed(continuation))
            guard active.withLock({ $0 != nil }) else {
                delivery.failWaiters(SpeechStreamingError(.invalidState, "no synthesis task is running"))
                return
            }
            requestFinish()
        }
    }

    /// Abandons the running task at once: the connection is dropped, queued text and unsent audio are lost, no
    /// further event of the task arrives (waiting ``start()`` / ``finish()`` calls throw invalidState).
    public func cancel() {
        active.withLock {
            $0 = nil
            _ = delivery.nextGeneration()
        }
        engine.post(.cancel)
        delivery.failWaiters(SpeechStreamingError(.invalidState, "the task was cancelled"))
    }

    /// Ends the session: abandons any task, closes the connection with a close frame (1000), stops the network
    /// thread and finishes ``events``. Idempotent. Blocks until the close frame is written (at most 2 s).
    public func close() {
        state.withLock { $0.closed = true }
        active.withLock {
            $0 = nil
            _ = delivery.nextGeneration()
        }
        engine.shutdown()
        delivery.failWaiters(SpeechStreamingError(.invalidState, "the session is closed"))
        delivery.finish()
    }

    /// Timings and counters so far. Any thread.
    public var statistics: SynthesisStatistics { delivery.statistics.withLock { $0 } }
}
