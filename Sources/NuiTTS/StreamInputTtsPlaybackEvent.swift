/// The playback events of ``NeoNuiStreamInputTtsDelegate/onStreamInputTtsPlaybackEventCallback(_:sessionId:position_ms:)``
/// when a ``StreamInputTtsPlayback`` is attached. Kept apart from the synthesis events (whose
/// `TTS_EVENT_SYNTHESIS_COMPLETE` means all audio was *delivered*, not played). Numbered from 100, outside the
/// SDK's 0–5.
public enum StreamInputTtsPlaybackEvent: Int32, Sendable, CaseIterable {
    /// The task's first sample was handed to the device.
    case TTS_PLAYBACK_STARTED = 100
    /// Every byte the task delivered was decoded (after `TTS_EVENT_SYNTHESIS_COMPLETE` or `TTS_EVENT_TASK_FAILED`).
    case TTS_PLAYBACK_INPUT_ENDED = 101
    /// The task's last sample was handed to the device: playback finished.
    case TTS_PLAYBACK_DRAINED = 102
    /// Playback was stopped (``NeoNuiStreamInputTts/cancelStreamInputTts()`` or the player's `stop()`).
    case TTS_PLAYBACK_STOPPED = 103
    /// The room's tail after drained/stopped has passed (``AudioPlayback/PlaybackConfiguration/rearmAfterMilliseconds``):
    /// the mic may be re-armed.
    case TTS_PLAYBACK_MIC_REARMED = 104
    /// The audio could not be decoded further; what was decoded before still plays.
    case TTS_PLAYBACK_DECODE_FAILED = 105
    /// Barge-in (``NeoNuiStreamInputTts/enableBargeIn(_:source:)``): the user talked over the answer, so the SDK
    /// stopped playback and ended the synthesis task. `position_ms` is where playback stopped (the samples of the
    /// task handed to the device); ``NeoNuiStreamInputTtsDelegate/onStreamInputTtsInterruptedCallback(_:)``
    /// follows with the characters and words heard. Comes right after its `TTS_PLAYBACK_STOPPED`.
    case TTS_PLAYBACK_INTERRUPTED = 106
}
