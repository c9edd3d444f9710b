import AudioFrontEnd
import SpeechStreaming

/// The callback-style core of a recognition session: the on-device ``AudioFrontEnd/FrontEnd`` feeding the
/// ``SpeechStreaming/SpeechStreamingSession``, with every event of both reported as a ``RecognitionEvent``.
/// ``RecognitionSession`` (async/await) and the NUI facade are thin layers over it.
///
/// One core runs one dialog: create → set ``eventHandler`` → ``start()`` → push audio → ``finish()`` or
/// ``cancel(force:)``; then make a new core for the next dialog.
///
/// - ``start()`` returns at once; ``RecognitionEvent/started(_:)`` follows when the service accepts the task,
///   or ``RecognitionEvent/error(_:)`` (e.g. connection refused) ends the session.
/// - ``finish()`` returns at once (after flushing the front end's last frames); the last results and then
///   ``RecognitionEvent/completed(_:)`` follow.
/// - ``cancel(force:)``: forced, ``RecognitionEvent/completed(_:)`` comes at once (after the events already
///   queued) and the connection is dropped; not forced, it is ``finish()`` (completed after the final result).
/// - No mic push for ``RecognitionConfiguration/micSilenceTimeout`` between `start()` and `finish()`:
///   ``RecognitionEvent/micSilent(milliseconds:)``, once per silent stretch (NUI's `EVENT_MIC_ERROR`).
///
/// Threads: the handler is called on the core's own event thread, one event at a time, in order, never while
/// the core holds a lock; from the handler you may call any method of the core (push, finish, cancel) without
/// deadlock. Audio is forwarded from the front end's drain thread, never from the pushing threads. Pushes are
/// real-time safe; the other calls are for a control thread (or the handler).
public final class RecognitionCore: @unchecked Sendable { // immutable references to thread-safe parts
    public let configuration: RecognitionConfiguration
    private let frontEnd: FrontEnd
    private let session: SpeechStreamingSession
    private let shared = SharedState()
    private let pump = EventPump()
    private let forwarder: AudioForwarder
    private let processor: EventProcessor
    private let clock: any RecognitionClock

    /// Creates the front end and the streaming client (no connection yet). Control thread; allocates.
    /// - Parameter clock: the clock of the mic-silence watchdog and the timings (inject one in tests).
    /// - Throws: ``RecognitionError`` naming the first bad value.
    public init(configuration: RecognitionConfiguration, clock: any RecognitionClock = SystemRecognitionClock()) throws {
        self.configuration = configuration
        self.clock = clock
        let frontEndConfiguration = try configuration.resolvedFrontEnd()
        do { frontEnd = try FrontEnd(configuration: frontEndConfiguration) } catch let error as AudioFrontEndError {
            throw RecognitionError.frontEnd(error)
        }
        session = try configuration.makeStreamingSession()
        forwarder = AudioForwarder(session: session, pump: pump, shared: shared, configuration: configuration)
        processor = EventProcessor(shared: shared, frontEnd: frontEnd, session: session, clock: clock,
                                   configuration: configuration)
        frontEnd.delegate = forwarder
        session.delegate = forwarder
    }

    deinit {
        pump.stop()
        frontEnd.cancel()
        session.close()
    }

    /// Receives every event on the core's event thread (see the type's notes). Set it before ``start()``.
    /// Released after the last event (``RecognitionEvent/isTerminal``), so it may capture the core.
    public var eventHandler: (@Sendable (RecognitionEvent) -> Void)? {
        get { shared.handler.withLock { $0?.call } }
        set {
            let box = newValue.map(HandlerBox.init)
            shared.handler.withLock { $0 = box }
        }
    }

    /// Starts the front end and the connection; returns at once. Control thread or the handler.
    /// - Throws: ``RecognitionError/invalidState(_:)`` when already started (one core runs one dialog).
    public func start() throws {
        if let state = shared.transition(from: [.created], to: .running) {
            throw RecognitionError.invalidState("start() needs a new session, this one is \(state)")
        }
        startEventThread()
        pump.post(.startRequested(at: clock.now()))
        do {
            try frontEnd.start()
            try session.start()
        } catch {
            let failure = (error as? SpeechStreamingError).map(RecognitionError.service)
                ?? (error as? AudioFrontEndError).map(RecognitionError.frontEnd)
                ?? .invalidState("\(error)")
            shared.lifecycle.withLock { $0 = .ended }
            frontEnd.cancel()
            session.close()
            pump.stop()
            throw failure
        }
    }

    /// Pushes mic audio as little-endian int16 bytes (NUI's `nui_update_audio_data`); see
    /// ``AudioFrontEnd/FrontEnd/pushMic(bytes:)``. Mic thread (one at a time); real-time safe.
    public func pushMic(bytes: UnsafeRawBufferPointer) -> PushResult {
        if bytes.count > 0 { shared.micPushes.add(1, ordering: .relaxed) }
        return frontEnd.pushMic(bytes: bytes)
    }

    /// Pushes mic samples. Mic thread (one at a time); real-time safe.
    public func pushMic(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        if samples.count > 0 { shared.micPushes.add(1, ordering: .relaxed) }
        return frontEnd.pushMic(samples: samples)
    }

    /// Pushes what the device plays (NUI's `nui_push_reference_data`). Reference thread; real-time safe.
    public func pushReference(bytes: UnsafeRawBufferPointer) -> PushResult { frontEnd.pushReference(bytes: bytes) }

    /// Pushes reference samples. Reference thread; real-time safe.
    public func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        frontEnd.pushReference(samples: samples)
    }

    /// Playback hints (NUI's `play_start` / `play_over`). Any thread; real-time safe.
    public func setPlaying(_ isPlaying: Bool) { frontEnd.setPlaying(isPlaying) }

    /// Sends new conversation context to the running DashScope task. Control thread or the handler.
    /// - Throws: ``RecognitionError/service(_:)`` for NLS or when no task runs.
    public func updateContext(_ context: [ContextMessage]) throws {
        do { try session.updateContext(context) } catch let error as SpeechStreamingError {
            throw RecognitionError.service(error)
        }
    }

    /// Ends the audio: the front end processes what it holds, the rest goes to the service, and the last
    /// results and ``RecognitionEvent/completed(_:)`` follow. Returns without waiting for them.
    /// Control thread or the handler.
    /// - Throws: ``RecognitionError/invalidState(_:)`` when not running (not started, finishing, ended).
    public func finish() throws {
        if let state = shared.transition(from: [.running], to: .finishing) {
            throw RecognitionError.invalidState("finish() needs a running session, this one is \(state)")
        }
        pump.post(.finishRequested(at: clock.now()))
        do { try frontEnd.finish() } catch {
            // The front end already ended: a service error cancelled it, and that error is being reported.
        }
    }

    /// Cancels the dialog (NUI's `nui_dialog_cancel`). Forced: drops the audio and the connection and reports
    /// ``RecognitionEvent/completed(_:)`` (``RecognitionSummary/Ending/cancelled``) at once. Not forced:
    /// ``finish()`` (completed after the final result). Any thread or the handler; does nothing once ended.
    /// A forced cancel before ``start()`` also reports completed (cancelled), and the core cannot start after.
    public func cancel(force: Bool) {
        if !force {
            try? finish()
            return
        }
        let previous = shared.lifecycle.withLock { state in
            defer { state = .ended }
            return state
        }
        guard previous != .ended else { return }
        frontEnd.cancel()
        session.cancel()
        if previous == .created { startEventThread() } // the completed event comes even without a start
        pump.post(.forcedCancel)
    }

    private func startEventThread() {
        let processor = processor
        pump.start(name: "VoiceRecognition.events") { processor.handle($0) }
    }

    /// The streaming client's counters. Any thread.
    public var statistics: SessionStatistics { session.statistics }

    /// Whether the session runs (started, not yet ended). Any thread.
    public var isRunning: Bool { [.running, .finishing].contains(shared.state) }
}
