import AudioFrontEnd
import SpeechStreaming

/// One thing that happened in a recognition session: from the service (results, in the server's order), from
/// the on-device front end (speech start/end, processed audio, level, echo telemetry, drops) or from the session
/// itself (mic silence, completion).
///
/// Order: ``started(_:)`` comes before any result; the session ends with exactly one of ``completed(_:)`` and
/// ``error(_:)``, and nothing follows it. Front-end events and service events interleave as they happen.
public enum RecognitionEvent: Sendable {
    /// The service accepted the task; audio flows (NUI's `EVENT_TRANSCRIBER_STARTED`).
    case started(TaskStarted)
    /// A sentence began on the service side (`EVENT_SENTENCE_START`).
    case sentenceStart(SentenceStart)
    /// An intermediate result; replaces the sentence's previous partial text (`EVENT_ASR_PARTIAL_RESULT`).
    case partialResult(RecognitionResult)
    /// A sentence's final text (`EVENT_SENTENCE_END`).
    case finalResult(RecognitionResult)
    /// A translation of a sentence (`EVENT_RESULT_TRANSLATED`).
    case translation(Translation)
    /// The on-device VAD found speech starting at `milliseconds` of mic audio (`EVENT_VAD_START`).
    case speechStarted(milliseconds: Int)
    /// The on-device VAD found speech ending at `milliseconds` (`EVENT_VAD_END`).
    case speechEnded(milliseconds: Int)
    /// A processed (echo-cancelled) chunk, at the front end's output rate (`EVENT_AEC_DATA`).
    case audio(AudioChunk)
    /// The level of one 10 ms frame in dBFS, −160…0: mic input and processed output (`onNuiRmsChanged`).
    case level(milliseconds: Int, inputDecibels: Float, outputDecibels: Float)
    /// Echo telemetry, about four times a second: delay found, alignment, ERLE, double talk, drift.
    case telemetry(EchoTelemetry)
    /// Audio was dropped or missing somewhere (counts so far; all zero in a healthy stream).
    case drops(RecognitionDrops)
    /// No mic audio was pushed for `milliseconds` while the session ran (`EVENT_MIC_ERROR`). Reported once per
    /// silent stretch; the session goes on.
    case micSilent(milliseconds: Int)
    /// The connection dropped and the client reconnects (only with reconnection enabled).
    case reconnecting(Reconnection)
    /// The session failed (`EVENT_ASR_ERROR`); the last event.
    case error(RecognitionError)
    /// The session ended: after the final result (finish, or cancel without force), or at once (forced
    /// cancel). The last event (`EVENT_TRANSCRIBER_COMPLETE`).
    case completed(RecognitionSummary)

    /// The server message behind the event, verbatim (secrets redacted), when it came from the service.
    public var rawJSON: String? {
        switch self {
        case .started(let e): e.rawJSON
        case .sentenceStart(let e): e.rawJSON
        case .partialResult(let e), .finalResult(let e): e.rawJSON
        case .translation(let e): e.rawJSON
        case .error(let e): e.rawJSON
        case .completed(let s): s.rawJSON
        default: nil
        }
    }

    /// Whether nothing follows this event.
    public var isTerminal: Bool {
        switch self {
        case .completed, .error: true
        default: false
        }
    }
}

/// Counts of audio that did not reach the service as pushed. All zero in a healthy stream.
public struct RecognitionDrops: Sendable, Equatable {
    /// The front end's counts (mic refused, reference dropped or missing).
    public var frontEnd = DropCounts()
    /// Processed audio bytes (PCM or Ogg) that never went to the service: the streaming client did not take
    /// them (its queue was full, or the task had already ended), or took them and dropped them when the task
    /// ended before they went out (an error, an early task-finished, a cancel).
    public var audioBytesNotSent = 0
    /// Events dropped because a consumer fell too far behind: service events (results, sentence starts) when
    /// the streaming client's delegate queue or the session's event thread is more than 16,384 events behind;
    /// the front end's audio, levels and echo telemetry when 16,384 of its events wait for the event thread (a
    /// slow ``RecognitionCore/eventHandler``); any element a ``RecognitionSession`` sequence that was asked for
    /// drops beyond its bound. Never a task's start or end, nor a VAD event.
    public var eventsDropped = 0

    public init() {}

    /// Whether every count is zero.
    public var isEmpty: Bool { self == RecognitionDrops() }
}

/// One stretch of speech found by the on-device VAD, in ms of mic audio.
public struct SpeechSegment: Sendable, Equatable {
    public var startMilliseconds: Int
    /// nil while the speech has not ended (at a forced cancel).
    public var endMilliseconds: Int?
}
