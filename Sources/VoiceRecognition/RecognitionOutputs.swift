import AudioFrontEnd
import SpeechStreaming

/// What the service recognized: ``RecognitionSession/results``. In the server's order; a sentence's partials
/// come between its ``sentenceStart(_:)`` and its ``final(_:)``.
public enum TranscriptionResult: Sendable {
    /// A sentence began on the service side (NUI's `EVENT_SENTENCE_START`).
    case sentenceStart(SentenceStart)
    /// An intermediate result; replaces the sentence's previous partial text (`EVENT_ASR_PARTIAL_RESULT`).
    case partial(RecognitionResult)
    /// A sentence's final text (`EVENT_SENTENCE_END`).
    case final(RecognitionResult)
    /// A translation of a sentence (`EVENT_RESULT_TRANSLATED`).
    case translation(Translation)
}

/// Speech found on the device, and the mic's own silence: ``RecognitionSession/speechActivity``.
public enum SpeechActivity: Sendable, Equatable {
    /// The on-device VAD found speech starting at `milliseconds` of mic audio (`EVENT_VAD_START`).
    case started(milliseconds: Int)
    /// The on-device VAD found speech ending at `milliseconds` (`EVENT_VAD_END`).
    case ended(milliseconds: Int)
    /// No mic audio was pushed for `milliseconds` while the session ran (`EVENT_MIC_ERROR`); once per stretch.
    case micSilent(milliseconds: Int)
}

/// How the session is doing: ``RecognitionSession/telemetry``. Levels come every 10 ms frame, echo telemetry
/// about four times a second, drops when a count changes, reconnections when the connection drops.
public enum RecognitionTelemetry: Sendable {
    /// One 10 ms frame's level in dBFS, −160…0: mic input and processed output (`onNuiRmsChanged`).
    case level(milliseconds: Int, inputDecibels: Float, outputDecibels: Float)
    /// Delay found, alignment, ERLE, double talk, drift.
    case echo(EchoTelemetry)
    /// Audio dropped or missing somewhere (counts so far; all zero in a healthy stream).
    case drops(RecognitionDrops)
    /// The connection dropped and the client reconnects (only with reconnection enabled).
    case reconnecting(Reconnection)
}

/// How fast ``RecognitionSession/analyzeFile(atPath:pacing:)`` pushes a file.
public enum InputPacing: Sendable, Equatable {
    /// 10 ms of audio per 10 ms of wall-clock time, as a microphone would (services that refuse audio faster
    /// than real time).
    case realTime
    /// As fast as the front end takes it (a refused push waits for room and is pushed again).
    case asFastAsAccepted
}

/// The bounded sequences of one ``RecognitionSession``, and where each ``RecognitionEvent`` goes. Any thread.
final class RecognitionOutputs: Sendable {
    /// Most unread elements each sequence keeps (the newest; the others are dropped and, once the sequence was
    /// asked for, counted in the summary's ``RecognitionDrops/eventsDropped``).
    struct Limits: Sendable {
        var events = 16_384
        var results = 4096
        /// Of `results` before anybody asks for it: partials carry their raw JSON (~1 KB), and an app that reads
        /// only `events` never asks (4096 of them kept ~4 MiB for the session's life).
        var resultsBeforeAccess = 256
        var speechActivity = 1024
        /// 5 s of 10 ms chunks.
        var processedAudio = 500
        /// About 10 s of levels.
        var telemetry = 1024
    }

    let events: LazyEventStream<RecognitionEvent>
    let results: LazyEventStream<TranscriptionResult>
    let speechActivity: LazyEventStream<SpeechActivity>
    let processedAudio: LazyEventStream<AudioChunk>
    let telemetry: LazyEventStream<RecognitionTelemetry>

    init(limits: Limits = Limits()) {
        events = LazyEventStream(limit: limits.events)
        results = LazyEventStream(limit: limits.results, keptBeforeAccess: limits.resultsBeforeAccess)
        speechActivity = LazyEventStream(limit: limits.speechActivity)
        processedAudio = LazyEventStream(limit: limits.processedAudio)
        telemetry = LazyEventStream(limit: limits.telemetry)
        // The split sequences buffer from the start (a reader that starts after `start()` misses nothing, up to
        // `resultsBeforeAccess` results); the all-in-one `events` only once asked for.
        // A sequence nobody asks for drops its oldest unread elements uncounted: nothing was handed to anyone.
        results.prepare()
        speechActivity.prepare()
        processedAudio.prepare()
        telemetry.prepare()
    }

    /// Elements the sequences dropped so far.
    var droppedCount: Int {
        events.droppedCount + results.droppedCount + speechActivity.droppedCount + processedAudio.droppedCount
            + telemetry.droppedCount
    }

    /// Hands `event` to `events` and to the one split sequence it belongs to.
    func route(_ event: RecognitionEvent) {
        events.yield(event)
        switch event {
        case .sentenceStart(let start): results.yield(.sentenceStart(start))
        case .partialResult(let result): results.yield(.partial(result))
        case .finalResult(let result): results.yield(.final(result))
        case .translation(let translation): results.yield(.translation(translation))
        case .speechStarted(let milliseconds): speechActivity.yield(.started(milliseconds: milliseconds))
        case .speechEnded(let milliseconds): speechActivity.yield(.ended(milliseconds: milliseconds))
        case .micSilent(let milliseconds): speechActivity.yield(.micSilent(milliseconds: milliseconds))
        case .audio(let chunk): processedAudio.yield(chunk)
        case .level(let milliseconds, let input, let output):
            telemetry.yield(.level(milliseconds: milliseconds, inputDecibels: input, outputDecibels: output))
        case .telemetry(let echo): telemetry.yield(.echo(echo))
        case .drops(let drops): telemetry.yield(.drops(drops))
        case .reconnecting(let reconnection): telemetry.yield(.reconnecting(reconnection))
        case .started, .completed, .error: break
        }
    }

    /// Ends every sequence.
    func finish() {
        events.finish()
        results.finish()
        speechActivity.finish()
        processedAudio.finish()
        telemetry.finish()
    }
}
