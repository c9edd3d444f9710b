/// The events `NeoNuiSdkDelegate.onNuiEventCallback` and `onNuiAssistEventCallback` report: every event of the NUI
/// real-time ASR SDK and of the Tingwu stream-ingest SDK, under the SDK's own names.
///
/// The NUI documentation gives no numbers; ours are in `ResultCodes.md` and never change once published. As with the
/// Objective-C SDK, each case is also a global constant, so ported code such as
/// `if nuiEvent == EVENT_ASR_PARTIAL_RESULT { … }` compiles unchanged.
public enum NuiCallbackEvent: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// The start of speech (Tingwu), or, in the real-time ASR SDK, right after the task started. Ours: the on-device
    /// VAD found the start of speech.
    case EVENT_VAD_START = 0
    /// Not used by real-time recognition (kept for the numbering of the SDK's event list).
    case EVENT_VAD_TIMEOUT = 1
    /// The on-device VAD found the end of speech.
    case EVENT_VAD_END = 2
    /// An intermediate recognition result (`asrResult` is the server's JSON).
    case EVENT_ASR_PARTIAL_RESULT = 8
    /// A final recognition result (Tingwu list; this SDK reports finals as ``EVENT_SENTENCE_END``).
    case EVENT_ASR_RESULT = 9
    /// Recognition failed; `retCode` holds a ``NuiResultCode`` and `asrResult` the error message or server JSON.
    case EVENT_ASR_ERROR = 10
    /// No audio arrived for 2 consecutive seconds.
    case EVENT_MIC_ERROR = 15
    /// A sentence began.
    case EVENT_SENTENCE_START = 17
    /// A sentence ended; `asrResult` holds its complete result.
    case EVENT_SENTENCE_END = 18
    /// Not in use (Tingwu list).
    case EVENT_SENTENCE_SEMANTICS = 19
    /// Recognition finished after `nui_dialog_cancel` (`ifFinish` is true).
    case EVENT_TRANSCRIBER_COMPLETE = 20
    /// A translation result (Tingwu).
    case EVENT_RESULT_TRANSLATED = 21
    /// The task started: the server accepted it and audio flows.
    case EVENT_TRANSCRIBER_STARTED = 26
    /// Audio after on-device echo cancellation, through `onNuiAssistEventCallback` (16-bit PCM in `buffer`).
    case EVENT_AEC_DATA = 40

    /// The Tingwu document's spelling of ``EVENT_MIC_ERROR``.
    public static let EVENT_MIC_EEROR = NuiCallbackEvent.EVENT_MIC_ERROR

    /// The case name, e.g. `EVENT_SENTENCE_END`.
    public var description: String {
        switch self {
        case .EVENT_VAD_START: "EVENT_VAD_START"
        case .EVENT_VAD_TIMEOUT: "EVENT_VAD_TIMEOUT"
        case .EVENT_VAD_END: "EVENT_VAD_END"
        case .EVENT_ASR_PARTIAL_RESULT: "EVENT_ASR_PARTIAL_RESULT"
        case .EVENT_ASR_RESULT: "EVENT_ASR_RESULT"
        case .EVENT_ASR_ERROR: "EVENT_ASR_ERROR"
        case .EVENT_MIC_ERROR: "EVENT_MIC_ERROR"
        case .EVENT_SENTENCE_START: "EVENT_SENTENCE_START"
        case .EVENT_SENTENCE_END: "EVENT_SENTENCE_END"
        case .EVENT_SENTENCE_SEMANTICS: "EVENT_SENTENCE_SEMANTICS"
        case .EVENT_TRANSCRIBER_COMPLETE: "EVENT_TRANSCRIBER_COMPLETE"
        case .EVENT_RESULT_TRANSLATED: "EVENT_RESULT_TRANSLATED"
        case .EVENT_TRANSCRIBER_STARTED: "EVENT_TRANSCRIBER_STARTED"
        case .EVENT_AEC_DATA: "EVENT_AEC_DATA"
        }
    }
}

public let EVENT_VAD_START = NuiCallbackEvent.EVENT_VAD_START
public let EVENT_VAD_TIMEOUT = NuiCallbackEvent.EVENT_VAD_TIMEOUT
public let EVENT_VAD_END = NuiCallbackEvent.EVENT_VAD_END
public let EVENT_ASR_PARTIAL_RESULT = NuiCallbackEvent.EVENT_ASR_PARTIAL_RESULT
public let EVENT_ASR_RESULT = NuiCallbackEvent.EVENT_ASR_RESULT
public let EVENT_ASR_ERROR = NuiCallbackEvent.EVENT_ASR_ERROR
public let EVENT_MIC_ERROR = NuiCallbackEvent.EVENT_MIC_ERROR
public let EVENT_MIC_EEROR = NuiCallbackEvent.EVENT_MIC_ERROR
public let EVENT_SENTENCE_START = NuiCallbackEvent.EVENT_SENTENCE_START
public let EVENT_SENTENCE_END = NuiCallbackEvent.EVENT_SENTENCE_END
public let EVENT_SENTENCE_SEMANTICS = NuiCallbackEvent.EVENT_SENTENCE_SEMANTICS
public let EVENT_TRANSCRIBER_COMPLETE = NuiCallbackEvent.EVENT_TRANSCRIBER_COMPLETE
public let EVENT_RESULT_TRANSLATED = NuiCallbackEvent.EVENT_RESULT_TRANSLATED
public let EVENT_TRANSCRIBER_STARTED = NuiCallbackEvent.EVENT_TRANSCRIBER_STARTED
public let EVENT_AEC_DATA = NuiCallbackEvent.EVENT_AEC_DATA
