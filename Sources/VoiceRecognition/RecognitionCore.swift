import AudioFrontEnd
import SpeechStreaming

/// The callback-style core of a recognition session: the on-device ``AudioFrontEnd/FrontEnd`` feeding the
/// ``SpeechStreaming/SpeechStreamingSession``, with every event of both reported as a ``RecognitionEvent``.
/// ``RecognitionSession`` (async/await) and the NUI facade are thin layers over it.
///
/// One core runs one dialog: create → set ``eventHandler`` → ``start()`` → push audio → ``finish()`` or
/// ``cancel(force:)``; then make a new core for the next dialog. Made with ``init(configuration:)`` the
/// core has its own front end and connection, which end with the dialog. Made on a ``RecognitionEngine``
/// (``init(engine:service:)``) it uses the engine's running front end and kept connection, which outlive
/// it: its pushes go to the engine (taken before and after the dialog too), its audio is the engine's output
/// between its start and its finish, and its end leaves the connection open for the next dialog where the
/// protocol allows it.
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
/// deadlock. Audio goes to the streaming client on the processing thread (the mic push), straight into its
/// lock-free ring, with no allocation and no lock (``AudioFrontEnd/FrontEndAudioSink``); events go through the
/// front end's drain thread, which posts them to the event thread. A handler slower than the audio never holds
/// the front end back: while 16,384 front-end events wait, the audio, levels and echo telemetry are dropped and
/// counted in ``RecognitionDrops/eventsDropped`` (never the VAD, the drops or the end). Pushes are
/// real-time safe; the other calls are for a control thread (or the handler).
public final class RecognitionCore: @unchecked Sendable { // immutable references to thread-safe parts
    public let configuration: RecognitionConfiguration
    private let frontEnd: FrontEnd
    private let session: SpeechStreamingSession
    private let engine: RecognitionEngine?
    private let shared = SharedState()
    private let pump = EventPump()
    private let forwarder: AudioForwarder
    private let processor: EventProcessor
    private let clock: any RecognitionClock

    /// Creates the front end and the streaming client (no connection yet). Control thread; allocates.
    /// - Throws: ``RecognitionError`` naming the first bad value.
    public convenience init(configuration: RecognitionConfiguration) throws {
        try self.init(configuration: configuration, clock: SystemRecognitionClock())
    }

    /// ``init(configuration:)`` with `clock` for the mic-silence watchdog and the timings (tests).
    @_spi(Testing) public init(configuration: RecognitionConfiguration, clock: any RecognitionClock) throws {
        self.configuration = configuration
        self.clock = clock
        engine = nil
        let frontEndConfiguration = try configuration.resolvedFrontEnd()
        do { frontEnd = try FrontEnd(configuration: frontEndConfiguration) } catch let error as AudioFrontEndError {
            throw RecognitionError.frontEnd(error)
        }
        session = try configuration.makeStreamingSession()
        let forwarder = AudioForwarder(session: session, pump: pump, shared: shared, configuration: configuration)
        self.forwarder = forwarder
        let (frontEnd, session, shared) = (frontEnd, session, shared)
        processor = EventProcessor(shared: shared, hooks: EventProcessor.Hooks(
            micPushes: { shared.micPushes.load(ordering: .relaxed) },
            statistics: { session.statistics },
            release: {
                forwarder.setTap(nil) // before the last event: nothing of the dialog after it
                frontEnd.cancel()
                session.cancel()
            },
            close: { session.close() },
            poll: {}), clock: clock, configuration: configuration)
        frontEnd.delegate = forwarder
        frontEnd.audioSink = forwarder // audio to the client on the processing thread (issue 13 part 2)
        session.delegate = forwarder
    }

    /// A dialog on `engine`: its running front end, and its kept connection when `service` (default: the
    /// engine's) is the one the kept connection was made for, else a new connection. Create it right before its
    /// ``start()``; one dialog at a time runs on an engine. Control thread; allocates.
    /// - Throws: ``RecognitionError`` naming the first bad value, or ``RecognitionError/invalidState(_:)`` when
    ///   the engine is closed.
    public convenience init(engine: RecognitionEngine, service: RecognitionConfiguration.Service? = nil) throws {
        try self.init(engine: engine, service: service, clock: SystemRecognitionClock())
    }

    /// ``init(engine:service:)`` with `clock` for the mic-silence watchdog and the timings (tests).
    @_spi(Testing) public init(engine: RecognitionEngine, service: RecognitionConfiguration.Service?,
                               clock: any RecognitionClock) throws {
        var configuration = engine.configuration
        if let service { configuration.service = service }
        self.configuration = configuration
        self.clock = clock
        self.engine = engine
        frontEnd = engine.frontEnd
        session = try engine.streamingSession(for: configuration)
        let forwarder = AudioForwarder(session: session, pump: pump, shared: shared, configuration: configuration)
        self.forwarder = forwarder
        let (session, shared, router) = (session, shared, engine.router)
        // The hooks hold the engine weakly: the event thread may outlive the core by a batch, and must not keep the
        // engine (and its front end) alive after its owner let it go (nui_release).
        let micChannels = engine.frontEnd.configuration.mic.channelCount
        processor = EventProcessor(shared: shared, hooks: EventProcessor.Hooks(
            micPushes: { [weak engine] in engine?.micPushes.load(ordering: .relaxed) ?? 0 },
            statistics: { session.statistics.since(shared.statisticsBase.withLock { $0 }) },
            release: {
                router.detach(forwarder)
                forwarder.setTap(nil) // before the last event: nothing of the dialog after it
            },
            close: {},
            poll: { [weak engine] in
                if let engine { forwarder.stopIfOverdue(micPushes: engine.micPushes.load(ordering: .relaxed)) }
            },
            frontEndDrops: { [weak engine] _ in
                engine.map { shared.dropBase.withLock { $0 }.share(of: router.lastDrops.withLock { $0 }, $0) }
            },
            dialogAudio: { [weak engine] in
                guard let engine else { return nil }
                return forwarder.totals(micBytesNow: engine.micBytes.load(ordering: .relaxed)).map {
                    DialogAudioTotals(micSamples: $0.micBytes / (2 * micChannels), outputSamples: $0.outputSamples)
                }
            },
            audioPending: { forwarder.audioPending(handledEnd: $0) }),
            clock: clock, configuration: configuration)
    }

    deinit {
        pump.stop()
        if let engine {
            engine.router.detach(forwarder)
            if [.running, .finishing].contains(shared.state) { session.cancel() }
        } else {
            frontEnd.cancel()
            session.close()
        }
    }

    /// Receives every event on the core's event thread (see the type's notes). Set it before ``start()``.
    /// Released after the last event (``RecognitionEvent/isTerminal``), so it may capture the core.
    public var eventHandler: (@Sendable (RecognitionEvent) -> Void)? {
        get { shared.handler.withLock { value in SanitizerSync.held(by: shared) { value?.call } } }
        set {
            let box = newValue.map(HandlerBox.init)
            shared.handler.withLock { value in SanitizerSync.held(by: shared) { value = box } }
        }
    }

    /// Starts the front end (on an engine: takes its output from now on) and the task; returns at once.
    /// Control thread or the handler.
    /// - Throws: ``RecognitionError/invalidState(_:)`` when already started (one core runs one dialog).
    public func start() throws {
        if let state = shared.transition(from: [.created], to: .running) {
            throw RecognitionError.invalidState("start() needs a new session, this one is \(state)")
        }
        guard startEventThread() else {
            shared.lifecycle.withLock { $0 = .ended }
            throw RecognitionError.invalidState("the system refused the session's event thread")
        }
        pump.post(.startRequested(at: clock.now()))
        do {
            if let engine {
                shared.statisticsBase.withLock { $0 = session.statistics }
                let drops = engine.router.lastDrops.withLock { $0 }
                shared.dropBase.withLock {
                    $0 = SharedState.DropBase(counts: drops, micRefusedBytes: engine.micRefusedBytes.load(ordering: .relaxed),
                                              referenceRefusedBytes: engine.referenceRefusedBytes.load(ordering: .relaxed))
                }
                engine.router.attach(forwarder) // before the start: the task's first event may come at once
                try session.start(opusHeader: OpusStreamHeader(preSkip: AudioForwarder.opusPreSkip(rate: engine.router.outputRate),
                                                               inputSampleRate: engine.router.outputRate))
                forwarder.begin(at: engine.micOutputPosition, outputRate: engine.router.outputRate,
                                micBytes: engine.micBytes.load(ordering: .relaxed))
            } else {
                try frontEnd.start()
                try session.start(opusHeader: OpusStreamHeader(preSkip: frontEnd.opusPreSkip,
                                                               inputSampleRate: frontEnd.configuration.processingRate))
            }
        } catch {
            let failure = (error as? SpeechStreamingError).map(RecognitionError.service)
                ?? (error as? AudioFrontEndError).map(RecognitionError.frontEnd)
                ?? .invalidState("\(error)")
            shared.lifecycle.withLock { $0 = .ended }
            if let engine {
                engine.router.detach(forwarder)
            } else {
                frontEnd.cancel()
                session.close()
            }
            pump.stop()
            throw failure
        }
    }

    /// Pushes mic audio as little-endian int16 bytes (NUI's `nui_update_audio_data`); see
    /// ``AudioFrontEnd/FrontEnd/pushMic(bytes:)``. Mic thread (one at a time); real-time safe.
    public func pushMic(bytes: UnsafeRawBufferPointer) -> PushResult {
        if let engine { return engine.pushMic(bytes: bytes) }
        if bytes.count > 0 { shared.micPushes.add(1, ordering: .relaxed) }
        return frontEnd.pushMic(bytes: bytes)
    }

    /// Pushes mic samples. Mic thread (one at a time); real-time safe.
    public func pushMic(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        if let engine { return engine.pushMic(samples: samples) }
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

    /// The reference is a player's: see ``AudioFrontEnd/FrontEnd/startReferenceAtMic()``. Any thread; real-time safe.
    package func startReferenceAtMic() { frontEnd.startReferenceAtMic() }

    /// Sends new conversation context to the running DashScope task. Control thread or the handler; not real-time
    /// safe (allocates).
    /// - Throws: ``RecognitionError/service(_:)``: code ``SpeechStreaming/SpeechStreamingError/Code/invalidState``
    ///   for NLS (the protocol has no context update), ``SpeechStreaming/SpeechStreamingError/Code/taskNotRunning``
    ///   when no task runs (e.g. the service ended it and its event has not reached the handler yet).
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
        if let engine {
            // The audio ends at the mic's position now: exactly when the mic runs on, else without the stages'
            // held-back tail (see ``AudioForwarder/stopGrace``).
            forwarder.requestStop(at: engine.micOutputPosition, outputEnd: engine.router.outputEnd.load(ordering: .acquiring),
                                  micBytes: engine.micBytes.load(ordering: .relaxed),
                                  micPushes: engine.micPushes.load(ordering: .relaxed))
            return
        }
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
        if let engine {
            engine.router.detach(forwarder) // the engine's front end runs on; the connection is dropped
        } else {
            frontEnd.cancel()
        }
        session.cancel()
        if previous == .created { startEventThread() } // the completed event comes even without a start
        pump.post(.forcedCancel)
    }

    @discardableResult
    private func startEventThread() -> Bool {
        let processor = processor
        return pump.start(name: "VoiceRecognition.events") { processor.handle($0) }
    }

    /// Waits until the core's event thread has returned (after the last event, ``RecognitionEvent/isTerminal``),
    /// so nothing it held (the handler's captures, the core itself) outlives this call; at most `timeout` seconds.
    /// Returns at once from the event thread itself or when the core never started. Returns false on timeout.
    /// Control thread.
    package func waitUntilEventThreadEnded(timeout: Double = 5) -> Bool { pump.waitUntilEnded(timeout: timeout) }

    /// Hands the dialog's audio, levels and VAD events to `tap` on the front end's drain thread instead of the
    /// ``eventHandler`` (see ``DialogOutputTap``); nil closes it (after this returns the old tap is not called).
    /// On an engine or on the core's own front end. Set it before ``start()``; close it from any thread but the
    /// drain thread (not from inside the tap). The dialog's end closes it before its last event.
    package func setOutputTap(_ tap: (any DialogOutputTap)?) { forwarder.setTap(tap) }

    /// The rate of the processed audio the core reports (``RecognitionEvent/audio(_:)``). Any thread.
    package var outputRate: Int { engine?.router.outputRate ?? frontEnd.configuration.effectiveOutputRate }

    /// The streaming client this dialog sends to (package access: the real-time path's tests).
    package var streamingSession: SpeechStreamingSession { session }

    /// The streaming client's counters. Any thread.
    public var statistics: SessionStatistics { session.statistics.since(shared.statisticsBase.withLock { $0 }) }

    /// The mic format pushes are in (rate, channels). Any thread.
    public var micFormat: FrontEndConfiguration.InputFormat { frontEnd.configuration.mic }

    /// Whether ``start()`` or a cancel has been called. Any thread.
    var hasStarted: Bool { shared.state != .created }

    /// Whether the session runs (started, not yet ended). Any thread.
    public var isRunning: Bool { [.running, .finishing].contains(shared.state) }
}

extension SessionStatistics {
    /// The counts since `base` (all of them when nil).
    func since(_ base: SessionStatistics?) -> SessionStatistics {
        guard let base else { return self }
        var counts = self
        counts.audioFramesSent -= base.audioFramesSent
        counts.audioBytesSent -= base.audioBytesSent
        counts.textMessagesSent -= base.textMessagesSent
        counts.overruns -= base.overruns
        counts.reconnectionAttempts -= base.reconnectionAttempts
        counts.replayedBytes -= base.replayedBytes
        counts.audioBytesDropped -= base.audioBytesDropped
        counts.streamEventsDropped -= base.streamEventsDropped
        counts.eventsDropped -= base.eventsDropped
        counts.replayDroppedBytes -= base.replayDroppedBytes
        return counts
    }
}

extension SharedState.DropBase {
    /// A dialog's share of the engine's front-end drops: the counts since its start, the refused bytes as the
    /// engine counted them at each push (the front end reports those only with its next processed frame).
    func share(of latest: DropCounts, _ engine: RecognitionEngine) -> DropCounts {
        var share = DropCounts()
        share.micRefusedBytes = engine.micRefusedBytes.load(ordering: .relaxed) - micRefusedBytes
        share.referenceRefusedBytes = engine.referenceRefusedBytes.load(ordering: .relaxed) - referenceRefusedBytes
        share.referenceDroppedSamples = latest.referenceDroppedSamples - counts.referenceDroppedSamples
        share.referenceMissingSamples = latest.referenceMissingSamples - counts.referenceMissingSamples
        share.eventOverruns = latest.eventOverruns - counts.eventOverruns
        return share
    }
}
