/// The callbacks of `NeoNui`, with the Objective-C SDK's method and parameter names.
///
/// Threads: every callback runs on an SDK thread, never the caller's and never while the SDK holds a lock.
/// `onNuiEventCallback`, `onNuiAudioStateChanged`, `onNuiRmsChanged`, `onNuiAssistEventCallback` and
/// `onNuiLogTrackCallback` run one at a time, in one order, on the instance's one callback thread;
/// `onNuiNeedAudioData` runs on the SDK's audio thread (pull mode only). The order, and which callbacks an app
/// slower than the audio may lose (counted in ``NeoNui/callbackDrops``), are in `Sources/NuiSDK/Callbacks.md`. A callback may call any `NeoNui` method, `nui_release` included, without
/// deadlocking (the NUI documentation advises against it; here it is safe). Pointers passed to a callback are valid
/// only during the call. Every method has an empty default, as the Objective-C protocol's are optional.
public protocol NeoNuiSdkDelegate: AnyObject {
    /// An event and, for results, the server's JSON.
    /// - Parameters:
    ///   - nuiEvent: the event.
    ///   - dialog: the dialog number (counts `nui_dialog_start` calls from 1); not needed.
    ///   - wuw: wake word; always null here.
    ///   - asr_result: the server message as JSON for results, start and completion; the message for errors.
    ///   - finish: true when the dialog ended (`EVENT_TRANSCRIBER_COMPLETE`, `EVENT_ASR_ERROR`).
    ///   - code: a ``NuiResultCode`` raw value for `EVENT_ASR_ERROR` and `EVENT_MIC_ERROR`, else 0.
    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32)

    /// Pull mode (`audio_update_manually` false): fill `audioData` with up to `len` bytes of 16-bit mono PCM at
    /// `nls_config.sample_rate` and return how many bytes were written (0 when none is ready; negative on error).
    /// Called on the SDK's audio thread about every 10 ms of audio while a dialog runs.
    func onNuiNeedAudioData(_ audioData: UnsafeMutablePointer<CChar>?, length len: Int32) -> Int32

    /// When to open, pause or close the recorder.
    func onNuiAudioStateChanged(_ state: NuiAudioState)

    /// The level of the audio received, −160…0 dB (full scale), every 10 ms frame.
    func onNuiRmsChanged(_ rms: Float)

    /// Auxiliary data: `EVENT_AEC_DATA` with the echo-cancelled audio (16-bit mono PCM at the processing rate) in
    /// `buffer`; `info` is null. `buffer` is the SDK's, valid during the call and read-only (the C listener's
    /// `const char *`; the pointer type mirrors the Objective-C signature): copy what you keep, never write to it.
    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32)

    /// One SDK log line at or above both the `logLevel` of `nui_initialize` and `log_track_level`.
    func onNuiLogTrackCallback(_ level: NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?)
}

extension NeoNuiSdkDelegate {
    public func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                                   asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {}
    public func onNuiNeedAudioData(_ audioData: UnsafeMutablePointer<CChar>?, length len: Int32) -> Int32 { 0 }
    public func onNuiAudioStateChanged(_ state: NuiAudioState) {}
    public func onNuiRmsChanged(_ rms: Float) {}
    public func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                         buffer: UnsafeMutablePointer<CChar>?, len: Int32) {}
    public func onNuiLogTrackCallback(_ level: NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {}
}
