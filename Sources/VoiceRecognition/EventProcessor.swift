import AudioFrontEnd
import SpeechStreaming

/// Runs on the session's event thread: turns front-end and service events into ``RecognitionEvent``s, keeps
/// what the summary needs, watches for mic silence, and ends the session (front end cancelled, connection
/// closed, handler released) after the last event. Touched by the event thread only.
final class EventProcessor: @unchecked Sendable { // confined to the EventPump thread
    /// What the processor needs from the core it reports for (standalone or on an engine).
    struct Hooks: Sendable {
        /// Mic pushes so far (the watchdog watches it change).
        var micPushes: @Sendable () -> Int
        /// The streaming client's counters for this dialog.
        var statistics: @Sendable () -> SessionStatistics
        /// Stops what the dialog ran, before its last event.
        var release: @Sendable () -> Void
        /// Closes what the dialog ran, after its last event.
        var close: @Sendable () -> Void
        /// Runs on every batch and poll while the dialog runs.
        var poll: @Sendable () -> Void
        /// The dialog's own front-end drops, given the counts of the front end's latest drops event (nil: those).
        var frontEndDrops: @Sendable (DropCounts) -> DropCounts? = { _ in nil }
        /// A dialog on an engine: its audio totals (nil for a standalone dialog).
        var dialogAudio: @Sendable () -> DialogAudioTotals? = { nil }
        /// A dialog on an engine: whether audio the processing thread sent for it has not reached the event
        /// thread yet (the drain lags), given the end of the audio events this thread has handled (dialog
        /// positions). Its completion waits for that audio (at most ``completionWait``). The end handled here,
        /// not what the drain took: the drain counts a chunk before its message is handled, and a completion in
        /// the same batch (or handled while the chunk's message waits for the next one) would go first and end
        /// the dialog before it (EVENT_AEC_DATA lost after EVENT_TRANSCRIBER_COMPLETE).
        var audioPending: @Sendable (_ handledEnd: Int) -> Bool = { _ in false }
    }

    /// How long a dialog's completion may wait for the audio events of what it sent: the drain delivers them,
    /// the service's completion may come first (loopback, a loaded machine).
    static let completionWait = Duration.seconds(1)

    private let shared: SharedState
    private let hooks: Hooks
    private let clock: any RecognitionClock
    private let reportsAudio: Bool
    private let micSilenceTimeout: Duration

    private var ended = false
    private var startTime: Duration?
    private var finishTime: Duration?
    private var startedTime: Duration?
    private var taskId: String?
    private var sentences: [RecognitionResult] = []
    private var frontEndSummary: FrontEndSummary?
    private var delay: Double?
    private var erle = MedianHistogram()
    private var segments: [SpeechSegment] = []
    private var drops = RecognitionDrops()
    private var frontEndCounts = DropCounts()
    // Mic-silence watchdog.
    private var watching = false
    private var lastPushCount = 0
    private var lastPushTime = Duration.zero
    private var silenceReported = false
    /// The service's completion, held until the dialog's audio events are in (see ``Hooks/audioPending``).
    private var pendingCompletion: (rawJSON: String?, since: ContinuousClock.Instant)?
    /// End of the audio events handled so far (dialog positions, output samples).
    private var audioHandledEnd = 0

    init(shared: SharedState, hooks: Hooks, clock: any RecognitionClock, configuration: RecognitionConfiguration) {
        self.shared = shared
        self.hooks = hooks
        self.clock = clock
        reportsAudio = configuration.reportsAudio
        micSilenceTimeout = configuration.micSilenceTimeout
    }

    /// Handles one batch from the pump, then the time-based checks. Returns true once the session has ended.
    func handle(_ batch: [EventPump.Message]) -> Bool {
        for message in batch where !ended { handle(message) }
        guard !ended else { return true }
        if let pending = pendingCompletion {
            let audioMissing = hooks.audioPending(audioHandledEnd)
            if !audioMissing || ContinuousClock.now - pending.since >= Self.completionWait {
                pendingCompletion = nil
                complete(rawJSON: pending.rawJSON, gaveUpOnAudio: audioMissing)
                return true
            }
        }
        hooks.poll()
        reportDrops()
        checkMicSilence()
        return false
    }

    /// Delivers `.drops` when the audio not sent or the events dropped changed: audio the client refused
    /// (AudioForwarder) or took but dropped when the task ended early (``SessionStatistics/audioBytesDropped``);
    /// service events dropped by the bounded queues (the client's delivery queue, the event thread's).
    private func reportDrops() {
        let statistics = hooks.statistics()
        let notSent = shared.audioBytesNotSent.load(ordering: .relaxed) + statistics.audioBytesDropped
        let events = shared.eventsDropped.load(ordering: .relaxed) + statistics.eventsDropped
        let frontEnd = hooks.frontEndDrops(frontEndCounts) ?? drops.frontEnd
        if notSent != drops.audioBytesNotSent || events != drops.eventsDropped || frontEnd != drops.frontEnd {
            drops.audioBytesNotSent = notSent
            drops.eventsDropped = events
            drops.frontEnd = frontEnd
            deliver(.drops(drops))
        }
    }

    private func handle(_ message: EventPump.Message) {
        switch message {
        case .startRequested(let time):
            startTime = time
            watching = true
            lastPushTime = time
            lastPushCount = hooks.micPushes()
        case .finishRequested(let time):
            finishTime = time
            watching = false
        case .forcedCancel:
            watching = false
            reportDrops()
            end(with: .completed(summary(.cancelled, rawJSON: nil)))
        case .frontEnd(let event):
            handle(event)
        case .tapped(let event):
            track(event)
        case .speech(let event):
            handle(event)
        }
    }

    private func handle(_ event: FrontEndEvent) {
        switch event {
        case .audio(let chunk):
            audioHandledEnd = max(audioHandledEnd, chunk.position + chunk.samples.count)
            if reportsAudio { deliver(.audio(chunk)) }
        case .speechStarted(let milliseconds):
            track(event)
            deliver(.speechStarted(milliseconds: milliseconds))
        case .speechEnded(let milliseconds):
            track(event)
            deliver(.speechEnded(milliseconds: milliseconds))
        case .level(let milliseconds, let input, let output):
            deliver(.level(milliseconds: milliseconds, inputDecibels: input, outputDecibels: output))
        case .telemetry(let telemetry):
            if let d = telemetry.delayMilliseconds { delay = d }
            if let e = telemetry.erleDecibels { erle.add(e) }
            deliver(.telemetry(telemetry))
        case .drops(let counts):
            frontEndCounts = counts
            drops.frontEnd = hooks.frontEndDrops(counts) ?? counts
            deliver(.drops(drops))
        case .finished(let summary):
            frontEndSummary = summary
        case .opusPacket, .oggPage, .bargeIn:
            break
        }
    }

    /// The summary's speech segments.
    private func track(_ event: FrontEndEvent) {
        switch event {
        case .speechStarted(let milliseconds):
            segments.append(SpeechSegment(startMilliseconds: milliseconds, endMilliseconds: nil))
        case .speechEnded(let milliseconds):
            if let last = segments.indices.last, segments[last].endMilliseconds == nil {
                segments[last].endMilliseconds = milliseconds
            }
        default:
            break
        }
    }

    private func handle(_ event: SpeechEvent) {
        switch event {
        case .started(let started):
            taskId = started.taskId
            startedTime = clock.now()
            deliver(.started(started))
        case .sentenceStart(let start): deliver(.sentenceStart(start))
        case .partialResult(let result): deliver(.partialResult(result))
        case .sentenceEnd(let result):
            // Kept for the summary without its raw JSON: a dialog of hours ends with hundreds of sentences, and their
            // server JSON (words, times) was most of the ~40 KB a minute a long dialog grew by.
            var kept = result
            kept.rawJSON = ""
            sentences.append(kept)
            deliver(.finalResult(result))
        case .translation(let translation): deliver(.translation(translation))
        case .reconnecting(let reconnection): deliver(.reconnecting(reconnection))
        case .completed(let completed):
            if hooks.audioPending(audioHandledEnd) { pendingCompletion = (completed.rawJSON, ContinuousClock.now); return } // wall time: a test clock may stand still
            complete(rawJSON: completed.rawJSON)
        case .error(let error):
            end(with: .error(.service(error)))
        }
    }

    /// Ends the dialog with its summary; `gaveUpOnAudio`: the completion waited out ``completionWait`` with audio
    /// events still missing (``RecognitionSummary/completionGaveUpOnAudio``).
    private func complete(rawJSON: String?, gaveUpOnAudio: Bool = false) {
        reportDrops()
        var summary = summary(.finished, rawJSON: rawJSON)
        summary.completionGaveUpOnAudio = gaveUpOnAudio
        end(with: .completed(summary))
    }

    private func checkMicSilence() {
        guard watching else { return }
        let now = clock.now()
        let count = hooks.micPushes()
        if count != lastPushCount {
            lastPushCount = count
            lastPushTime = now
            silenceReported = false
        } else if !silenceReported && now - lastPushTime >= micSilenceTimeout {
            silenceReported = true
            deliver(.micSilent(milliseconds: Int((now - lastPushTime) / .milliseconds(1))))
        }
    }

    private func summary(_ ending: RecognitionSummary.Ending, rawJSON: String?) -> RecognitionSummary {
        let now = clock.now()
        var summary = RecognitionSummary(
            ending: ending, taskId: taskId, sentences: sentences, frontEnd: frontEndSummary,
            delayMilliseconds: delay, echoReductionDecibels: erle.median,
            speechSegments: segments, drops: drops, statistics: hooks.statistics(),
            timeToStart: startedTime.flatMap { s in startTime.map { s - $0 } },
            timeToComplete: ending == .finished ? finishTime.map { now - $0 } : nil,
            totalTime: startTime.map { now - $0 } ?? .zero, rawJSON: rawJSON)
        summary.dialogAudio = hooks.dialogAudio()
        return summary
    }

    /// Delivers the last event, then releases what the dialog ran (standalone: the front end stops and the
    /// connection closes; on an engine: the dialog stops taking output, the kept connection stays), and
    /// the handler is dropped (which breaks any reference cycle through it).
    private func end(with event: RecognitionEvent) {
        reportDrops() // the last counts come before the last event
        ended = true
        watching = false
        shared.lifecycle.withLock { $0 = .ended }
        hooks.release()
        deliver(event)
        shared.handler.withLock { value in SanitizerSync.held(by: shared) { value = nil } }
        hooks.close()
    }

    private func deliver(_ event: RecognitionEvent) {
        let handler = shared.handler.withLock { value in SanitizerSync.held(by: shared) { value } }
        handler?.call(event)
    }
}
