import AudioFrontEnd
import SpeechStreaming
import Synchronization

/// Speech recognition of a device's microphone for new Swift code, in the spirit of Apple's `SpeechAnalyzer`:
/// configure with typed values, read the sequence you need, `try await start()`, push audio (real-time calls,
/// or an `AsyncSequence` of buffers, or a file), `try await finish()` for the summary.
///
/// ```swift
/// let session = try RecognitionSession(configuration: RecognitionConfiguration(
///     service: .dashScope(DashScopeConfiguration(apiKey: key))))
/// Task { for await result in session.results { if case .final(let r) = result { print(r.text) } } }
/// try await session.start()                          // connected, task started
/// // audio thread:    _ = session.pushMic(bytes: buffer)           // real-time safe
/// // playback thread: _ = session.pushReference(bytes: played)
/// let summary = try await session.finish()           // after the final result
/// // or, for audio that is not a live mic: let summary = try await session.analyzeSequence(buffers)
/// ```
///
/// Output comes as separate bounded sequences, each for one consumer and each ending when the session ends:
/// ``results`` (what the service recognized), ``speechActivity`` (on-device VAD, mic silence),
/// ``processedAudio`` (the echo-cancelled audio, NUI's `EVENT_AEC_DATA`) and ``telemetry`` (levels, echo
/// telemetry, drops, reconnections). They exist from the session's creation, so a reader started after
/// ``start()`` misses nothing; each keeps its newest unread elements up to a bound (``bufferLimits``), so a
/// sequence nobody reads costs bounded memory; what a sequence that was asked for drops is counted in the
/// summary's ``RecognitionDrops/eventsDropped`` (one never asked for drops uncounted: nobody lost anything). ``events`` has everything in one sequence (as before), made only when
/// asked for.
///
/// Where the elements come from (issue 13 part 3): the processed audio, levels and VAD events go into the
/// sequences on the front end's drain thread, in stream order, straight from the event ring (`SessionTap`; the
/// core's event thread is not on their path); the service's results, echo telemetry, drops, mic silence and
/// the end come from the core's event thread. In ``events`` the two interleave as they are produced (a result may
/// come before the last chunks of the audio it answers when the drain lags); the completion (or the error) is
/// always the last element: the tap is closed before it is yielded.
///
/// A thin layer over ``RecognitionCore`` (same events, same threads for pushes). One session runs one dialog;
/// to keep the echo canceller converged and the connection open across dialogs, create a ``RecognitionEngine``
/// once and a session on it per dialog (``init(engine:service:)``), pushing audio to the engine.
public final class RecognitionSession: Sendable {
    /// Every event in order, for one consumer, ending after ``RecognitionEvent/completed(_:)`` or
    /// ``RecognitionEvent/error(_:)``. Made on first access: events before it are not kept (take it before
    /// ``start()``). Holds at most ``eventBufferLimit`` unread events (the newest; the summary's
    /// ``RecognitionDrops/eventsDropped`` counts the others). Any thread.
    public var events: AsyncStream<RecognitionEvent> { outputs.events.stream }
    /// What the service recognized (sentence starts, partials, finals, translations). Ends with the session;
    /// its outcome (the summary or the error) is what ``finish()`` returns or throws.
    public var results: AsyncStream<TranscriptionResult> { outputs.results.stream }
    /// Speech start and end found by the on-device VAD, and mic silence.
    public var speechActivity: AsyncStream<SpeechActivity> { outputs.speechActivity.stream }
    /// The processed (echo-cancelled) audio at the front end's output rate (empty with
    /// ``RecognitionConfiguration/reportsAudio`` false).
    public var processedAudio: AsyncStream<AudioChunk> { outputs.processedAudio.stream }
    /// Levels, echo telemetry, drop counts and reconnections.
    public var telemetry: AsyncStream<RecognitionTelemetry> { outputs.telemetry.stream }
    /// The callback core, for what the async API does not cover.
    public let core: RecognitionCore
    /// Most unread events ``events`` holds.
    public static let eventBufferLimit = 16_384
    /// Most unread elements of ``results``, ``speechActivity``, ``processedAudio`` (10 ms chunks) and
    /// ``telemetry``.
    public static let bufferLimits = (results: 4096, speechActivity: 1024, processedAudio: 500, telemetry: 1024)
    let outputs: RecognitionOutputs
    private let started = OneShot<TaskStarted>()
    private let ended = OneShot<RecognitionSummary>()

    /// Creates the front end and the streaming client; connects nothing yet. Not real-time safe.
    /// - Throws: ``RecognitionError`` naming the first bad value.
    public convenience init(configuration: RecognitionConfiguration) throws {
        self.init(core: try RecognitionCore(configuration: configuration))
    }

    /// A dialog on `engine` (see ``RecognitionCore/init(engine:service:)``): the engine's running front
    /// end and kept connection, which outlive the session; a new session for each dialog. Not real-time safe.
    public convenience init(engine: RecognitionEngine, service: RecognitionConfiguration.Service? = nil) throws {
        self.init(core: try RecognitionCore(engine: engine, service: service))
    }

    /// A session on `core` (tests inject a core with a manual clock through it).
    @_spi(Testing) public init(core: RecognitionCore) {
        self.core = core
        let limits = Self.bufferLimits
        let outputs = RecognitionOutputs(limits: RecognitionOutputs.Limits(
            events: Self.eventBufferLimit, results: limits.results, speechActivity: limits.speechActivity,
            processedAudio: limits.processedAudio, telemetry: limits.telemetry))
        self.outputs = outputs
        // The processed audio, levels and VAD go into the sequences on the front end's drain thread, not through
        // the core's event thread (closed by the core before its last event).
        core.setOutputTap(SessionTap(outputs: outputs, sampleRate: core.outputRate,
                                     reportsAudio: core.configuration.reportsAudio))
        core.eventHandler = { [started, ended] original in
            var event = original // the end's summary and drops count what the sequences dropped too
            if case .completed(var summary) = original {
                summary.drops.eventsDropped += outputs.droppedCount
                event = .completed(summary)
            }
            outputs.route(event)
            switch event {
            case .started(let task): started.resolve(.success(task))
            case .completed(let summary):
                started.resolve(.failure(.invalidState("the session was cancelled before the service started")))
                ended.resolve(.success(summary))
                outputs.finish()
            case .error(let error):
                started.resolve(.failure(error))
                ended.resolve(.failure(error))
                outputs.finish()
            default: break
            }
        }
    }

    /// Connects and starts the task; returns once the service has accepted it.
    /// - Throws: ``RecognitionError`` (e.g. ``RecognitionError/service(_:)`` with `connectionRefused`).
    @discardableResult
    public func start() async throws -> TaskStarted {
        try core.start()
        return try await started.value()
    }

    /// Pushes mic audio (little-endian int16 bytes). Mic thread; real-time safe.
    public func pushMic(bytes: UnsafeRawBufferPointer) -> PushResult { core.pushMic(bytes: bytes) }
    /// Pushes mic samples. Mic thread; real-time safe.
    public func pushMic(samples: UnsafeBufferPointer<Int16>) -> PushResult { core.pushMic(samples: samples) }
    /// Pushes what the device plays (little-endian int16 bytes). Reference thread; real-time safe.
    public func pushReference(bytes: UnsafeRawBufferPointer) -> PushResult { core.pushReference(bytes: bytes) }
    /// Pushes reference samples. Reference thread; real-time safe.
    public func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult { core.pushReference(samples: samples) }
    /// Playback hints (`play_start` / `play_over`). Any thread; real-time safe.
    public func setPlaying(_ isPlaying: Bool) { core.setPlaying(isPlaying) }
    /// New conversation context for a running DashScope task. Any thread; not real-time safe (allocates).
    /// - Throws: as ``RecognitionCore/updateContext(_:)``.
    public func updateContext(_ context: [ContextMessage]) throws { try core.updateContext(context) }

    /// Ends the audio and waits for the final result and the end of the task.
    /// - Returns: the summary (sentences, delay found, echo removed, speech segments, drops, timings).
    /// - Throws: ``RecognitionError`` when the session was not running or failed; once a started session has
    ///   ended on its own (a service error, an early end), the error it ended with.
    @discardableResult
    public func finish() async throws -> RecognitionSummary {
        do { try core.finish() } catch {
            // Started and already ended (or ending): its last event holds the outcome.
            if case .success? = started.peek { return try await ended.value() }
            throw error
        }
        return try await ended.value()
    }

    /// Abandons the session at once: the connection is dropped, every sequence ends (``events`` with
    /// ``RecognitionEvent/completed(_:)``, cancelled), a waiting ``start()`` throws and a waiting ``finish()``
    /// returns the summary (``RecognitionSummary/Ending/cancelled``). Any thread; does nothing once ended.
    public func cancel() { core.cancel(force: true) }
}

/// A session's ``DialogOutputTap``: the dialog's processed audio, levels and VAD events into the session's
/// sequences (``RecognitionSession/events`` too) straight from the front end's drain thread. Each element is
/// what the core's handler would have got; an ``AudioChunk`` is the one allocation per 10 ms chunk (its
/// `[Int16]`, as before on the drain), and each sequence keeps its bound and counts what it drops.
final class SessionTap: DialogOutputTap, Sendable {
    let outputs: RecognitionOutputs
    let sampleRate: Int
    let reportsAudio: Bool

    init(outputs: RecognitionOutputs, sampleRate: Int, reportsAudio: Bool) {
        self.outputs = outputs
        self.sampleRate = sampleRate
        self.reportsAudio = reportsAudio
    }

    func dialogAudio(_ samples: UnsafeBufferPointer<Int16>, position: Int) {
        guard reportsAudio else { return } // on an engine the tap gets the audio whatever the configuration says
        outputs.route(.audio(AudioChunk(position: position, sampleRate: sampleRate, samples: Array(samples))))
    }

    func dialogLevel(milliseconds: Int, inputDecibels: Float, outputDecibels: Float) {
        outputs.route(.level(milliseconds: milliseconds, inputDecibels: inputDecibels, outputDecibels: outputDecibels))
    }

    func dialogSpeech(_ event: RecognitionEvent) { outputs.route(event) }
}
