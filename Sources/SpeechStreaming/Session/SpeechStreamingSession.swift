/// A thin cloud-streaming client: sends the caller's audio to DashScope real-time ASR (task protocol) or
/// to an NLS SpeechTranscriber / Tingwu MeetingJoinUrl, and reports what the server recognizes.
///
/// Lifecycle: `start()` connects (or reuses the open DashScope connection), sends the start message and,
/// once the server confirms, sends queued audio as binary frames of ``ConnectionOptions/frameDuration``.
/// `stop()` sends the rest of the audio and the finish message; ``SpeechEvent/completed(_:)`` follows.
/// After `.completed` or `.error`, `start()` may begin the next task (DashScope reuses the connection with
/// a new task id). `close()` ends the session for good.
///
/// Threads: the `send` calls are for the real-time audio thread; the other calls may come from any thread,
/// including the delegate. Networking runs on a private service thread; events arrive on a private
/// serial delivery queue, through both the delegate and ``events``.
///
/// Guarantees: every failure (refused connection, unknown host, TLS, HTTP 401/403, task-failed, server
/// closing, a silent server, malformed or oversized messages, timeouts) becomes exactly one
/// ``SpeechEvent/error(_:)`` within the configured timeouts, and nothing more is sent until the next start.
public final class SpeechStreamingSession: @unchecked Sendable { // immutable references to thread-safe parts
    /// Every event of the session in order, for one consumer. It finishes when the session closes. Made on the
    /// first access (events before it are not kept: take it before ``start()``; a session whose stream nobody
    /// asks for keeps no events), it then holds at most ``ConnectionOptions/eventBufferLimit`` unread events
    /// (the newest; drops are counted in ``SessionStatistics/streamEventsDropped``). With a limit of 0 it is
    /// empty and finished. Any thread.
    public var events: AsyncStream<SpeechEvent> {
        delivery.events
    }

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
        let counters = StatisticsCounters()
        delivery = EventDelivery(streamLimit: options.eventBufferLimit, counters: counters,
                                 redactor: Redactor(secrets: wire.secrets))
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
    /// - Parameter opusHeader: for ``AudioFormat/opus``, what the task's Ogg stream's OpusHead records (the
    ///   packets' pre-skip and input rate); ignored for PCM.
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` while a task runs or after `close()`.
    public func start(opusHeader: OpusStreamHeader = OpusStreamHeader()) throws {
        let epoch = try control.beginTask()
        engine.post(.start(epoch: epoch, opusHeader: opusHeader))
    }

    /// Queues audio for the running task: 16-bit little-endian mono PCM; for an ``AudioFormat/opus`` session,
    /// one Opus packet (its duration read from its table-of-contents byte), as ``send(opusPacket:durationSamples48k:)``.
    ///
    /// Audio thread. Real-time safe: copies into a preallocated lock-free queue, never allocates, locks or
    /// blocks; wakes the network thread at most once per frame's worth.
    /// - Returns: whether the audio was queued (see ``AudioSendResult``).
    public func send(audio: UnsafeRawBufferPointer) -> AudioSendResult {
        engine.wire.format == .opus ? send(opusPacket: audio) : engine.enqueue(audio)
    }

    /// Queues one Opus packet (mono) for the running task of an ``AudioFormat/opus`` session. The session muxes
    /// the packets into the Ogg Opus stream (RFC 7845) the service expects, on its network thread, with libogg:
    /// OpusHead (from ``start(opusHeader:)``) and OpusTags pages, then one page per packet with its granule
    /// position, grouped into binary frames of ``ConnectionOptions/frameDuration``; after a reconnection it muxes
    /// the kept packets again into a new valid stream.
    ///
    /// Audio thread. Real-time safe, like ``send(audio:)``.
    /// - Parameters:
    ///   - opusPacket: the packet, at most 4000 bytes.
    ///   - durationSamples48k: the granule positions it advances (48 kHz samples); nil reads its duration from
    ///     its table-of-contents byte. Less than its duration trims the stream's end (the last packet).
    /// - Returns: ``AudioSendResult/invalidAudio`` for a PCM session, an empty or oversized packet, or one whose
    ///   table-of-contents byte is malformed.
    public func send(opusPacket: UnsafeRawBufferPointer, durationSamples48k: Int? = nil) -> AudioSendResult {
        enqueue(opusPacket: opusPacket, durationSamples48k: durationSamples48k, endsStream: false, endsAudio: false)
    }

    /// Queues the Opus stream's last packet: its page carries the end-of-stream flag, and `durationSamples48k`
    /// below its duration trims the stream to the real input (RFC 7845 §4.4). The task's audio goes on until
    /// ``stop()``. Audio thread; real-time safe.
    public func send(lastOpusPacket packet: UnsafeRawBufferPointer, durationSamples48k: Int? = nil) -> AudioSendResult {
        enqueue(opusPacket: packet, durationSamples48k: durationSamples48k, endsStream: true, endsAudio: false)
    }

    /// ``send(opusPacket:durationSamples48k:)``, and (`endsAudio`) the task's audio ends after this packet, as
    /// ``stop()`` would end it but from the audio thread: the network thread stops the task when it takes the
    /// packet. Package access (VoiceRecognition's audio path). Real-time safe.
    package func enqueue(opusPacket: UnsafeRawBufferPointer, durationSamples48k: Int?, endsStream: Bool,
                         endsAudio: Bool) -> AudioSendResult {
        guard engine.wire.format == .opus, opusPacket.count <= 4000 else { return .invalidAudio }
        if opusPacket.isEmpty { return endsAudio ? engine.enqueue(opusPacket, tag: AudioRing.endsAudio) : .invalidAudio }
        let duration = durationSamples48k ?? ReplayBuffer.duration48k(opusPacket)
        guard duration >= 0, duration <= 5760, durationSamples48k != nil || duration > 0 else { return .invalidAudio }
        return engine.enqueue(opusPacket, tag: UInt32(duration) | (endsStream ? AudioRing.endsStream : 0)
                                               | (endsAudio ? AudioRing.endsAudio : 0))
    }

    /// Queues PCM (`bytes`, may be empty) and (`endsAudio`) ends the task's audio after it, from the audio thread
    /// (see ``enqueue(opusPacket:durationSamples48k:endsAudio:)``). Package access. Real-time safe.
    package func enqueue(pcm bytes: UnsafeRawBufferPointer, endsAudio: Bool) -> AudioSendResult {
        guard engine.wire.format == .pcm else { return .invalidAudio }
        return engine.enqueue(bytes, tag: endsAudio ? AudioRing.endsAudio : 0)
    }

    /// Queues 16-bit PCM samples (a PCM session). Audio thread; real-time safe, like ``send(audio:)``.
    public func send(samples: UnsafeBufferPointer<Int16>) -> AudioSendResult {
        enqueue(pcm: UnsafeRawBufferPointer(samples), endsAudio: false)
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
    /// - Throws: ``SpeechStreamingError/Code/invalidState`` for NLS sessions (the protocol has no context
    ///   update), ``SpeechStreamingError/Code/taskNotRunning`` when no task runs (none started, or it ended).
    public func updateContext(_ context: [ContextMessage]) throws {
        guard engine.wire.contextMessage(taskId: "", context: []) != nil else {
            throw SpeechStreamingError(.invalidState, "the NLS protocol has no context update")
        }
        guard control.isActive else { throw SpeechStreamingError(.taskNotRunning, "no task is running") }
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

    /// Called on the network thread around the audio path's callbacks and after each live audio frame's
    /// `lws_write` (``WebSocketTransport/audioPathProbe``: the real-time path's tests). Package access; set before
    /// the first task.
    package var audioPathProbe: ((AudioPathPoint) -> Void)? {
        get { engine.transport.audioPathProbe }
        set { engine.transport.audioPathProbe = newValue }
    }

    /// Counters so far. Any thread.
    public var statistics: SessionStatistics { engine.statistics }
}
