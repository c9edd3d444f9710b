import SpeechStreaming

/// What a synthesis session reports, in the order the server sent it.
///
/// A task's events: ``started(_:)``, then per sentence ``sentenceBegin(_:)``, one ``sentenceSynthesis(_:)``
/// before each ``audio(_:)`` frame, ``sentenceEnd(_:)``; finally ``completed(_:)`` or ``error(_:)`` (exactly one
/// of the two, and nothing more for that task). Every raw JSON passed the session's ``Redactor``.
public enum SynthesisEvent: Sendable {
    /// task-started: the server takes text now.
    case started(SynthesisStarted)
    /// result-generated, `sentence-begin`: a sentence's synthesis begins.
    case sentenceBegin(SynthesisSentence)
    /// result-generated, `sentence-synthesis`: one binary audio frame follows.
    case sentenceSynthesis(SynthesisSentence)
    /// A binary frame: synthesized audio in the task's format (see ``SynthesisFormat``).
    case audio(SynthesisAudio)
    /// result-generated, `sentence-end`, with the characters billed so far.
    case sentenceEnd(SynthesisSentence)
    /// task-finished: all audio has been delivered (not played).
    case completed(SynthesisCompleted)
    /// The task failed: task-failed (``SpeechStreamingError/Code/taskFailed`` with the server's code, e.g.
    /// `InvalidParameter` "[tts:]Engine return error code: 418" for an unknown voice, or the 23 s no-text
    /// timeout "request timeout after 23 seconds."), a connection problem, a timeout or a protocol violation.
    case error(SpeechStreamingError)

    /// A task's start or end: never dropped by a bounded queue.
    public var isTaskBoundary: Bool {
        switch self {
        case .started, .completed, .error: true
        default: false
        }
    }
}

public struct SynthesisStarted: Sendable, Equatable {
    public var taskId: String
    public var rawJSON: String
}

/// A word with its place in the sentence's text and in the audio.
public struct SynthesisWord: Sendable, Equatable {
    public var text: String
    /// Character offsets in the sentence's `original_text`: begin from 0, end exclusive.
    public var beginIndex: Int
    public var endIndex: Int
    /// Milliseconds, as the server counts them (the reference server: from the start of the task's audio).
    public var beginMilliseconds: Int
    public var endMilliseconds: Int
}

/// A sentence event (`sentence-begin`, `sentence-synthesis`, `sentence-end`).
public struct SynthesisSentence: Sendable, Equatable {
    /// `sentence.index`, from 0.
    public var index: Int
    /// `original_text` (begin and end events).
    public var originalText: String?
    /// `sentence.words`: word timestamps wherever the server puts them (empty without `word_timestamp_enabled`).
    public var words: [SynthesisWord]
    /// `usage.characters` so far (sentence-end).
    public var characters: Int?
    public var rawJSON: String
}

/// One binary frame of audio.
public struct SynthesisAudio: Sendable, Equatable {
    public var bytes: [UInt8]
    /// The sentence whose `sentence-synthesis` came before the frame (nil if none did).
    public var sentenceIndex: Int?
}

/// task-finished.
public struct SynthesisCompleted: Sendable, Equatable {
    public var taskId: String
    /// `usage.characters` of the task.
    public var characters: Int?
    /// Words the server put in task-finished (some services send all of them here).
    public var words: [SynthesisWord]
    public var rawJSON: String
}

/// Counters of a session. Times in milliseconds (nil until measured, for the last task).
public struct SynthesisStatistics: Sendable, Equatable {
    /// start() → WebSocket open (nil when the task reused an open connection).
    public var connectMilliseconds: Double?
    /// start() → task-started.
    public var startMilliseconds: Double?
    /// First continue-task written → first audio frame.
    public var firstAudioMilliseconds: Double?
    public var textMessagesSent = 0
    public var textCharactersSent = 0
    public var audioFrames = 0
    public var audioBytes = 0
    /// Events a delegate slower than the server did not take (beyond the backlog limit), audio included.
    public var eventsDropped = 0
    /// Audio bytes among them.
    public var audioBytesDropped = 0
    /// Events ``SpeechSynthesisSession/events`` dropped because nobody read them.
    public var streamEventsDropped = 0
}
