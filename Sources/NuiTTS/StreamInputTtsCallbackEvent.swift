/// The events of ``NeoNuiStreamInputTtsDelegate/onStreamInputTtsEventCallback(_:taskId:sessionId:ret_code:error_msg:timestamp:all_response:)``,
/// with the numbers of the SDK's headers (iOS `NeoNuiStreamInputTts.h`; C++ `flowingttssdk.h` has the same values).
public enum StreamInputTtsCallbackEvent: Int32, Sendable, CaseIterable {
    /// task-started: the service takes text.
    case TTS_EVENT_SYNTHESIS_STARTED = 0
    /// A sentence's synthesis began (`all_response`: the server's sentence-begin).
    case TTS_EVENT_SENTENCE_BEGIN = 1
    /// One audio frame follows in `onStreamInputTtsDataCallback` (`all_response`: the sentence-synthesis event).
    case TTS_EVENT_SENTENCE_SYNTHESIS = 2
    /// A sentence ended (`all_response`: sentence-end with `usage.characters`; `timestamp`: its words, if any).
    case TTS_EVENT_SENTENCE_END = 3
    /// task-finished: all audio was delivered (not played).
    case TTS_EVENT_SYNTHESIS_COMPLETE = 4
    /// The task failed: `ret_code` a ``NuiResultCode`` (e.g. 240312 for the server's task-failed), `error_msg` the
    /// message, `all_response` the server's JSON when it sent one.
    case TTS_EVENT_TASK_FAILED = 5
}
