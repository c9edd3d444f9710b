import AudioFrontEnd

extension NeoNui: BargeInSource {
    /// Calls `handler` with each barge-in decision of the SDK's front end (``FrontEndEvent/bargeIn(_:)``: the user
    /// talks over the playback, found on the echo-cancelled mic), from now until `nil` replaces it, across
    /// dialogs and engines (the front end made at the next `nui_dialog_start` forwards to it too). So a NuiTTS
    /// playback whose reference is this instance can stop on the recognizer's own decision
    /// (`NeoNuiStreamInputTts.enableBargeIn(true, source: nui)`, or with no source when the attached playback's
    /// reference is this instance). **Before the first `nui_dialog_start` there is no front end and so no
    /// decision** (no mic to decide on either); likewise after `nui_release` until the next dialog. The decision
    /// needs the front end's VAD (`enable_vad`, on by default with `audio_update_manually`) and the echo canceller
    /// (`enable_aec`) to tell the user from the answer.
    ///
    /// The handler runs on the front end's drain thread, before the dialog's events; it should return quickly.
    /// Any thread.
    public func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?) {
        let box = handler.map(BargeInHandlerBox.init)
        bargeInHandler.withLock { $0 = box }
    }

    /// Passes a decision of the engine's front end to the handler set now, if any (the front end's drain thread).
    func deliverBargeIn(_ decision: BargeInDecision) {
        bargeInHandler.withLock { $0 }?.call(decision)
    }
}

/// An immutable holder of the barge-in handler: a bare closure in `Mutex<(@Sendable (BargeInDecision) -> Void)?>`
/// read with `withLock { $0 }` was wrapped in one more reabstraction thunk at every read and written back (a heap
/// block and deeper stack per decision; AudioPlayback's `EventHandlerBox`, VoiceRecognition's `HandlerBox`).
final class BargeInHandlerBox: Sendable {
    let call: @Sendable (BargeInDecision) -> Void
    init(_ call: @escaping @Sendable (BargeInDecision) -> Void) { self.call = call }
}
