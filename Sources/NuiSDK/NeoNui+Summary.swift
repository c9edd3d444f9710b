import VoiceRecognition

extension NeoNui {
    /// The summary of the last dialog that completed (`EVENT_TRANSCRIBER_COMPLETE`): its sentences, the echo
    /// delay found, the echo removed (median ERLE while the far end played), the on-device VAD's speech segments,
    /// every drop, what was sent and the timings. Nil before the first completed dialog; a failed dialog
    /// (`EVENT_ASR_ERROR`) leaves it unchanged. Set before `EVENT_TRANSCRIBER_COMPLETE` is delivered, so it may be
    /// read inside that callback.
    ///
    /// Not part of the Objective-C SDK: an addition of this SDK for apps (and `afe stream`) that report what the
    /// front end did. Any thread; a control call (takes a lock, not real-time safe).
    public func nui_get_dialog_summary() -> RecognitionSummary? {
        lock.withLock { lastSummary }
    }
}
