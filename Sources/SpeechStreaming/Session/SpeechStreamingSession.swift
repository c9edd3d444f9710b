/// A thin cloud-streaming client: sends the caller's audio to DashScope real-time ASR (task protocol) or
/// to an NLS SpeechTranscriber / Tingwu MeetingJoinUrl, and reports what the server recognizes.
///
/// Lifecycle: `start()` connects (or reuses the open DashScope connection), sends the start message and,
/// once the server confirms, sends queued audio as binary frames of ``ConnectionOptions/frameDuration``.
/// `stop()` sends the rest of the audio and the finish message; ``SpeechEvent/completed(_:)`` follows.
/// After `.completed` or `.error`, `start()` may begin the next task (DashScope reuses the connection with
/// a new task id). `close()` ends the session for good.
///
/// Threads: `send(audio:)` is for the real-time audio thread; the other calls may come from any thread,
/// including the delegate. Networking runs on a private service thread; events arrive on a private
/// serial delivery queue, through both the delegate and ``events``.
///
/// Guarantees: every failure (refused connection, unknown host, TLS, HTTP 401/403, task-failed, server
/// closing, a silent server, malformed or oversized messages, timeouts) becomes exactly one
/// ``SpeechEvent/error(_:)`` within the configured timeouts, and nothing more is sent until the next start.
public final class SpeechStreamingSession: @unchecked Sendable { // immutable references to thread-safe parts
    /// Every event of the session in order, for one consumer. It finishes when the session closes. It holds
    /// at most ``ConnectionOptions/eventBufferLimit`` unread events (the newest; drops are counted).
    public let events: AsyncStream<SpeechEvent>

    private let engine: SessionEngine
    private let control = SessionControl()
    private let delivery: EventDelivery

    /// A DashScope task-protocol session (Paraformer, Fun-ASR, Qwen-Audio, Gummy real-time models).
    ///
    /// Not real-time safe (starts a thread, creates the lws context).
    /// - Throws: ``SpeechStreamingError/Code/invalidConfiguration`` naming the bad value.
    public convenience init(configuration: DashScopeConfiguration) throws {
        try self.init(wire: DashScopeProtocol(configuration), options: configuration.connection)
    }

    /// An NLS SpeechTranscriber session (ISI real-time transcription, Tingwu MeetingJoinUrl).
    ///
    /// Not real-time safe (starts a thread, creates the lws context).
    /// - Throws: ``SpeechStreamingError/Code/invalidConfiguration`` naming the bad value.
    public convenience init(configuration: NLSConfiguration) throws {
        try self.init(wire: NLSProtocol(configuration), options: configuration.connection)
    }

    init(wire: any WireProtocol, options: ConnectionOptions) throws {
        let limit = options.eventBufferLimit
        let (stream, continuation) = AsyncStream.makeStream(of: SpeechEvent.self,
                                                             bufferingPolicy: .bufferingNewest(max(1, limit)))
        events = stream
        let counters = StatisticsCounters()
        delivery = EventDelivery(continuation: limit > 0 ? continuation : nil, counters: counters,
                                 redactor: Redactor(secrets: wire.secrets))
        if limit == 0 { continuation.finish() }
        engine = try SessionEngine(wire: wire, options: options, control: control, delivery: delivery, counters: counters)
        delivery.attach(self)
    }

    deinit { close() }

    /// Receives every event on the delivery queue. Held weakly.
    public var delegate: (any SpeechStreamingDelegate)? {
        get { delivery.delegate }
        set { delivery.delegate = newValue }
    }

    /// Starts a task: connects if needed and sends run-task / StartTranscription. Audio passed to
    /// `send(audio:)` from now on is queued and goes out once the server confirms with `.started`.
    ///
    /// Any thread; returns at once. Not real-time safe.
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` while a task runs or after `close()`.
    public func start() throws {
        let epoch = try control.beginTask()
        engine.post(.start(epoch: epoch))
    }

    /// Queues audio for the running task: 16-bit little-endian mono PCM, or whole Ogg Opus pages.
    ///
    /// Audio thread. Real-time safe: copies into a preallocated lock-free queue, never allocates, locks or
    /// blocks; wakes the network thread at most once per frame's worth.
    /// - Returns: whether the audio was queued (see ``AudioSendResult``).
    public func send(audio: UnsafeRawBufferPointer) -> AudioSendResult { engine.enqueue(audio) }

    /// Queues 16-bit PCM samples. Audio thread; real-time safe, like ``send(audio:)``.
    public func send(samples: UnsafeBufferPointer<Int16>) -> AudioSendResult {
        engine.enqueue(UnsafeRawBufferPointer(samples))
    }

    /// Ends the task's audio: what is queued goes out, then finish-task / StopTranscription; the server's
    /// last results and ``SpeechEvent/completed(_:)`` follow. Audio sent after this is refused.
    ///
    /// Any thread; returns at once; does nothing when no task runs.
    public func stop() {
        if control.stopAudio() { engine.post(.stop) }
    }

    /// Abandons the running task at once: drops queued audio and closes the connection, without an event.
    /// Any thread.
    public func cancel() {
        control.endTask(epoch: nil)
        engine.post(.cancel)
    }

    /// Sends new conversation context to the running DashScope task (continue-task with `input.context`).
    ///
    /// Any thread. Supported by `fun-asr-realtime` and Qwen-Audio streaming models.
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` for NLS sessions or when no task runs.
    public func updateContext(_ context: [ContextMessage]) throws {
        guard engine.wire.contextMessage(taskId: "", context: []) != nil else {
            throw SpeechStreamingError(.invalidState, "the NLS protocol has no context update")
        }
        guard control.isActive else { throw SpeechStreamingError(.invalidState, "no task is running") }
        engine.post(.updateContext(context))
    }

    /// Ends the session: abandons any task, closes the connection with a WebSocket close frame (1000), stops the
    /// network thread and finishes ``events``. Idempotent. Any thread except inside lws (never the delegate's
    /// problem: the delegate runs on its own queue). Blocks until the close frame is written (at most 2 s, for a
    /// server that stopped reading) and the network thread has stopped.
    public func close() {
        control.endTask(epoch: nil, closing: true)
        engine.shutdown()
        delivery.finish()
    }

    /// Counters so far. Any thread.
    public var statistics: SessionStatistics { engine.statistics }
}
