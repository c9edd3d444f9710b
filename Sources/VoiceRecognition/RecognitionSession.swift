import AudioFrontEnd
import SpeechStreaming
import Synchronization

/// Speech recognition of a device's microphone for new Swift code, in the spirit of Apple's `SpeechAnalyzer`:
/// configure with typed values, `try await start()`, push audio, read ``events``, `try await finish()`.
///
/// ```swift
/// let session = try RecognitionSession(configuration: RecognitionConfiguration(
///     service: .dashScope(DashScopeConfiguration(apiKey: key))))
/// Task { for await event in session.events { if case .finalResult(let r) = event { print(r.text) } } }
/// try await session.start()                          // connected, task started
/// // audio thread:    _ = session.pushMic(bytes: buffer)           // real-time safe
/// // playback thread: _ = session.pushReference(bytes: played)
/// let summary = try await session.finish()           // after the final result
/// ```
///
/// A thin layer over ``RecognitionCore`` (same events, same threads for pushes). One session runs one dialog;
/// to keep the echo canceller converged and the connection open across dialogs, create a ``RecognitionEngine``
/// once and a session on it per dialog (``init(engine:service:clock:)``), pushing audio to the engine.
public final class RecognitionSession: Sendable {
    /// Every event in order, for one consumer; it ends after ``RecognitionEvent/completed(_:)`` or
    /// ``RecognitionEvent/error(_:)``. At most ``eventBufferLimit`` unread events wait (the newest; the summary's
    /// ``RecognitionDrops/eventsDropped`` counts the others), so a sequence nobody reads costs bounded memory.
    public let events: AsyncStream<RecognitionEvent>
    /// The callback core, for what the async API does not cover.
    public let core: RecognitionCore
    /// Most unread events ``events`` holds.
    public static let eventBufferLimit = 16_384
    private let started = OneShot<TaskStarted>()
    private let ended = OneShot<RecognitionSummary>()

    /// Creates the front end and the streaming client; connects nothing yet. Not real-time safe.
    /// - Throws: ``RecognitionError`` naming the first bad value.
    public convenience init(configuration: RecognitionConfiguration, clock: any RecognitionClock = SystemRecognitionClock()) throws {
        self.init(core: try RecognitionCore(configuration: configuration, clock: clock))
    }

    /// A dialog on `engine` (see ``RecognitionCore/init(engine:service:clock:)``): the engine's running front
    /// end and kept connection, which outlive the session; a new session for each dialog. Not real-time safe.
    public convenience init(engine: RecognitionEngine, service: RecognitionConfiguration.Service? = nil,
                            clock: any RecognitionClock = SystemRecognitionClock()) throws {
        self.init(core: try RecognitionCore(engine: engine, service: service, clock: clock))
    }

    private init(core: RecognitionCore) {
        self.core = core
        let (stream, continuation) = AsyncStream.makeStream(of: RecognitionEvent.self,
                                                             bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        events = stream
        let dropped = Atomic<Int>(0)
        core.eventHandler = { [started, ended] original in
            var event = original // the end's summary and drops count what this stream dropped too
            if case .completed(var summary) = original {
                summary.drops.eventsDropped += dropped.load(ordering: .relaxed)
                event = .completed(summary)
            }
            if case .dropped = continuation.yield(event) { dropped.add(1, ordering: .relaxed) }
            switch event {
            case .started(let task): started.resolve(.success(task))
            case .completed(let summary):
                started.resolve(.failure(.invalidState("the session was cancelled before the service started")))
                ended.resolve(.success(summary))
                continuation.finish()
            case .error(let error):
                started.resolve(.failure(error))
                ended.resolve(.failure(error))
                continuation.finish()
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
    /// New conversation context for a running DashScope task.
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

    /// Abandons the session at once: ``events`` ends with ``RecognitionEvent/completed(_:)`` (cancelled).
    public func cancel() { core.cancel(force: true) }
}
