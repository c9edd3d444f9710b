import AudioFrontEnd
import SpeechStreaming

/// What a recognition session did, delivered with ``RecognitionEvent/completed(_:)`` and returned by
/// ``RecognitionSession/finish()``.
public struct RecognitionSummary: Sendable {
    /// How the session ended.
    public enum Ending: Sendable, Equatable {
        /// The service finished the task after the final result.
        case finished
        /// A forced cancel ended it at once.
        case cancelled
    }

    public var ending: Ending
    /// The service's task id, once started.
    public var taskId: String?
    /// Every final result, in order, without its raw JSON (`rawJSON` is empty here: the
    /// ``RecognitionEvent/finalResult(_:)`` events carry it), so an hours-long dialog keeps only text and times.
    public var sentences: [RecognitionResult]
    /// The front end's totals (nil after a forced cancel, and for dialogs on a ``RecognitionEngine``, whose
    /// front end runs on: see ``dialogAudio``).
    public var frontEnd: FrontEndSummary?
    /// A dialog on a ``RecognitionEngine``: the mic audio pushed between its start and its finish and the
    /// output it took (nil for a standalone session).
    public var dialogAudio: DialogAudioTotals? = nil
    /// The last delay estimate from reference to echo, ms (nil when none was confident).
    public var delayMilliseconds: Double?
    /// The median of the front end's ERLE reports (echo removed while the far end played), dB; nil when the
    /// far end never played.
    public var echoReductionDecibels: Double?
    /// Speech stretches found by the on-device VAD.
    public var speechSegments: [SpeechSegment]
    public var drops: RecognitionDrops
    /// The streaming client's counters.
    public var statistics: SessionStatistics
    /// From `start()` to the service's started event (nil when it never started).
    public var timeToStart: Duration?
    /// From `finish()` to the end (nil after a forced cancel).
    public var timeToComplete: Duration?
    /// Whether the service's completion waited the whole time it may wait for the audio events of audio the dialog
    /// sent (1 s: a dialog on a ``RecognitionEngine``, whose drain may lag the socket) and then ended the dialog
    /// with some still missing. False when no wait was needed or every such event came (or was counted dropped)
    /// before the end, and after a forced cancel. Decided on the core's event thread as the summary is made (not on
    /// the audio path); the summary is a value, read it on any thread.
    public var completionGaveUpOnAudio = false
    /// From `start()` to the end.
    public var totalTime: Duration
    /// The completion message of the service (nil after a forced cancel).
    public var rawJSON: String?

    /// The final results' text joined by spaces.
    public var text: String { sentences.map(\.text).joined(separator: " ") }
}

/// The audio of one dialog on a ``RecognitionEngine``.
public struct DialogAudioTotals: Sendable, Equatable {
    /// Mic samples (per channel, at the mic rate) pushed between the dialog's start and its finish.
    public var micSamples: Int
    /// Processed samples (output rate) the dialog took: sent to the service as PCM and reported as audio. Short
    /// of the mic's duration by at most the stages' hold-back (20 ms) when the mic stopped at finish.
    public var outputSamples: Int
}
