import NuiSDK

/// The callbacks of ``NeoNuiStreamInputTts``, with the iOS SDK's names.
///
/// Threads: every callback runs on the SDK's callback thread, one at a time and in order, never on the caller's
/// thread and never while the SDK holds a lock: a callback may call any method (a `stopStreamInputTts` made from
/// a callback does not block: it acts as `asyncStopStreamInputTts`). Pointers are valid during the call only.
/// Every method has an empty default, as the Objective-C protocol's are optional.
public protocol NeoNuiStreamInputTtsDelegate: AnyObject {
    /// An event of the task.
    /// - Parameters:
    ///   - taskid: the synthesis task id (32 hex digits).
    ///   - sessionId: the `sessionId` given to `startStreamInputTts`, or the one the SDK made.
    ///   - ret_code: a ``NuiResultCode`` raw value for `TTS_EVENT_TASK_FAILED`, else 0.
    ///   - error_msg: the failure's message for `TTS_EVENT_TASK_FAILED`, else "".
    ///   - timestamp: the word timestamps of the event as a JSON array (`[{"text", "begin_index", "end_index",
    ///     "begin_time", "end_time"}]`) when the server sent any in it, else "".
    ///   - all_response: the server's JSON message (redacted).
    func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                       sessionId: UnsafePointer<CChar>?, ret_code: Int32, error_msg: UnsafePointer<CChar>?,
                                       timestamp: UnsafePointer<CChar>?, all_response: UnsafePointer<CChar>?)

    /// Synthesized audio, as the service sent it: pcm, wav (header in the first call only), mp3, or opus (each
    /// call one whole Ogg page). Concatenated in order it is the whole answer.
    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32)

    /// One SDK log line at or above both `logLevel` and the ticket's `log_track_level`.
    func onStreamInputTtsLogTrackCallback(_ level: NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?)

    /// A playback event, when a ``StreamInputTtsPlayback`` is attached (``NeoNuiStreamInputTts/setPlayback(_:)``).
    /// - Parameters:
    ///   - sessionId: the task's session id.
    ///   - position_ms: milliseconds of the task's audio handed to the device so far (drained: all of it;
    ///     stopped: where it stopped; input ended: all it will play), else 0.
    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64)

    /// A barge-in stopped the answer (after `TTS_PLAYBACK_INTERRUPTED`): where, and what of the text the user
    /// heard (with `word_timestamp_enabled`). See ``NeoNuiStreamInputTts/enableBargeIn(_:source:)``.
    func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption)
}

extension NeoNuiStreamInputTtsDelegate {
    public func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                              sessionId: UnsafePointer<CChar>?, ret_code: Int32,
                                              error_msg: UnsafePointer<CChar>?, timestamp: UnsafePointer<CChar>?,
                                              all_response: UnsafePointer<CChar>?) {}
    public func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) {}
    public func onStreamInputTtsLogTrackCallback(_ level: NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {}
    public func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                                      position_ms: Int64) {}
    public func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption) {}
}
