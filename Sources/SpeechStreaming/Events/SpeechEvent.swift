/// One thing that happened in a streaming session, in the order the server said it.
///
/// Every event that comes from a server message keeps that message verbatim in `rawJSON` (what NUI's
/// `nui_get_all_response` returns). Times are milliseconds of audio from the start of the current task as
/// the caller sent it: after a reconnection the session adds the position the replayed audio started at,
/// so times and sentence ids continue where the dropped connection left off (`rawJSON` keeps the server's
/// own numbers).
public enum SpeechEvent: Sendable {
    /// The server accepted the task (task-started / TranscriptionStarted); audio now flows.
    case started(TaskStarted)
    /// A new sentence began (NLS SentenceBegin; DashScope: the first result of a new sentence id).
    case sentenceStart(SentenceStart)
    /// An intermediate result; its text replaces the previous partial text of the same sentence.
    case partialResult(RecognitionResult)
    /// The final text of a sentence.
    case sentenceEnd(RecognitionResult)
    /// A translation (Tingwu ResultTranslated, DashScope Gummy `translations`).
    case translation(Translation)
    /// The task finished after `stop()` (task-finished / TranscriptionCompleted).
    case completed(TaskCompleted)
    /// The session lost its connection and will reconnect after `delay` (only with reconnection enabled).
    case reconnecting(Reconnection)
    /// The task ended with an error. Nothing more is sent until the next `start()`.
    case error(SpeechStreamingError)

    /// The server message behind the event, when there is one.
    public var rawJSON: String? {
        switch self {
        case .started(let e): e.rawJSON
        case .sentenceStart(let e): e.rawJSON
        case .partialResult(let e), .sentenceEnd(let e): e.rawJSON
        case .translation(let e): e.rawJSON
        case .completed(let e): e.rawJSON
        case .reconnecting: nil
        case .error(let e): e.rawJSON
        }
    }
}

/// The server accepted a task.
public struct TaskStarted: Sendable, Equatable {
    /// The task id the client sent (DashScope `task_id`, NLS `task_id`).
    public var taskId: String
    /// NLS `payload.session_id`, when the server sent one.
    public var sessionId: String?
    public var rawJSON: String
}

/// A sentence began.
public struct SentenceStart: Sendable, Equatable {
    public var taskId: String
    /// The sentence number, from 1 (DashScope `sentence_id`, NLS `index`).
    public var sentenceId: Int
    /// Where the sentence begins, in ms of task audio.
    public var beginMilliseconds: Int
    public var rawJSON: String
}

/// A recognition result, partial or final.
public struct RecognitionResult: Sendable, Equatable {
    public var taskId: String
    /// The sentence number, from 1 (DashScope `sentence_id`, NLS `index`).
    public var sentenceId: Int
    /// The text so far (partial) or the sentence's final text.
    public var text: String
    /// Where the sentence begins, in ms of task audio.
    public var beginMilliseconds: Int
    /// Where it ends (final results), or the audio time reached so far (NLS partials); nil when unknown.
    public var endMilliseconds: Int?
    /// Whether this is the sentence's final text.
    public var isFinal: Bool
    public var rawJSON: String
}

/// A translation of a sentence.
public struct Translation: Sendable, Equatable {
    public var taskId: String
    /// The sentence it translates, when the server says.
    public var sentenceId: Int?
    public var text: String
    /// The target language, when the server says.
    public var language: String?
    /// Whether the translation is final for its sentence (true when the server does not say).
    public var isFinal: Bool
    public var rawJSON: String
}

/// The task finished.
public struct TaskCompleted: Sendable, Equatable {
    public var taskId: String
    public var rawJSON: String
}

/// The session will reconnect.
public struct Reconnection: Sendable, Equatable {
    /// 1 for the first attempt after a drop.
    public var attempt: Int
    /// How long the session waits before this attempt.
    public var delay: Duration
    /// Why the connection was lost.
    public var cause: SpeechStreamingError
}
