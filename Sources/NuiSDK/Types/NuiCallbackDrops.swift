/// Callbacks the SDK dropped because the app's callbacks fell behind (``NeoNui/callbackDrops``): counts since the
/// instance was made. Only these kinds drop, once 1,024 of them wait; audio states, a dialog's start, ASR errors
/// and completion never do, and sentence starts and ends, VAD and mic errors only once 16,384 wait (a server
/// flooding results; counted in ``results``). See `Callbacks.md`.
///
/// Not part of the Objective-C SDK: an addition, as `nui_get_dialog_summary` is.
public struct NuiCallbackDrops: Sendable, Equatable {
    /// `EVENT_AEC_DATA` chunks (`onNuiAssistEventCallback`).
    public var aecData = 0
    /// `onNuiRmsChanged` levels.
    public var rms = 0
    /// `EVENT_ASR_PARTIAL_RESULT` and `EVENT_RESULT_TRANSLATED` (later results supersede them), and in a flood
    /// the other results; each dialog's are also in its summary's `drops.eventsDropped`.
    public var results = 0
    /// `onNuiLogTrackCallback` lines (the log file and standard error still have them).
    public var logLines = 0

    public init() {}

    /// All of them.
    public var total: Int { aecData + rms + results + logLines }
}
