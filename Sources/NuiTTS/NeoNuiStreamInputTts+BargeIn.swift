import AudioFrontEnd
import NuiSDK

extension NeoNuiStreamInputTts {
    /// Opt-in barge-in: when `source` (by default the attached playback's reference: a ``FrontEnd``, or the
    /// recognizer `NeoNui`, whose front end decides in every dialog and between them — see
    /// `NeoNui.setBargeInHandler(_:)`; before its first `nui_dialog_start` there is none, so no decision) decides that
    /// the user talks over the answer (``FrontEndEvent/bargeIn(_:)``, on the echo-cancelled mic), the SDK
    /// 1. stops playback within one device buffer (the player's `stop()`: the next render call or sink buffer
    ///    hands out silence, and the reference with it);
    /// 2. ends the synthesis task: the connection is dropped (the protocol's immediate interrupt — the service
    ///    stops at once and its unsent audio is lost; the next task connects again), no further callback of the
    ///    task arrives, and the SDK is idle (a blocked `stopStreamInputTts` returns);
    /// 3. reports `TTS_PLAYBACK_STOPPED`, then `TTS_PLAYBACK_INTERRUPTED` with the played position (the samples
    ///    of the task actually handed to the device), then
    ///    ``NeoNuiStreamInputTtsDelegate/onStreamInputTtsInterruptedCallback(_:)`` with the words and characters
    ///    heard (with `word_timestamp_enabled`).
    /// A decision while no answer plays does nothing. The recognizer keeps the user's words: the decision does
    /// not touch the front end's speech segments, whose start is back-dated to the speech's first frame.
    ///
    /// One handler per source: enabling replaces the source's handler; disabling (`false`) removes it. Any
    /// thread; not real-time safe. The decision arrives on the source's event thread (a front end's drain thread).
    /// - Returns: `SUCCESS`; `NUI_ERR_INVALID_PARAMETER_VALUE` when enabling with no source (no playback attached,
    ///   or its reference is not a ``BargeInSource``).
    @discardableResult
    public func enableBargeIn(_ enabled: Bool, source: (any BargeInSource)? = nil) -> NuiResultCode {
        lock.withLock {
            bargeInSource?.setBargeInHandler(nil)
            bargeInSource = nil
            guard enabled else { logger.info("enableBargeIn: off"); return .SUCCESS }
            guard let chosen = source ?? playback?.referenceTarget as? any BargeInSource else {
                return refuse("enableBargeIn", .NUI_ERR_INVALID_PARAMETER_VALUE,
                              "no barge-in source: attach a playback whose reference is a front end or the NeoNui recognizer, or pass one")
            }
            chosen.setBargeInHandler { [weak self] decision in self?.bargeIn(decision) }
            bargeInSource = chosen
            logger.info("enableBargeIn: on")
            return .SUCCESS
        }
    }

    /// Whether barge-in is on. Any thread.
    public var isBargeInEnabled: Bool { lock.withLock { bargeInSource != nil } }

    /// The source's event thread: stop and end the task, if an answer plays.
    private func bargeIn(_ decision: BargeInDecision) {
        if endTask("barge-in", bargeIn: decision) == .SUCCESS {
            logger.info("barge-in: speech from \(decision.speechStartMilliseconds) ms, decided at \(decision.milliseconds) ms "
                        + "(mic timeline)")
        }
    }
}
