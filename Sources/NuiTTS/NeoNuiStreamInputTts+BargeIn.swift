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
    /// A suspicion (``BargeInDecision/isSuspicion``: the source's front end has
    /// `FrontEndConfiguration.bargeInSuspicion` on) while an answer plays out turns the playback down by
    /// `duckDecibels` for `duckMilliseconds` (the player's ``SynthesisPlayer/duck(decibels:milliseconds:)``; a
    /// further suspicion extends it): the user is heard over a quieter echo and the barge-in decision that stops
    /// the answer comes sooner; a wrong suspicion costs the dip only. No event is reported for it.
    ///
    /// One handler per source: enabling replaces the source's handler; disabling (`false`) removes it. Any
    /// thread; not real-time safe. The decision arrives on the source's event thread (a front end's drain thread).
    /// - Returns: `SUCCESS`; `NUI_ERR_INVALID_PARAMETER_VALUE` when enabling with no source (no playback attached,
    ///   or its reference is not a ``BargeInSource``) or a duck out of range (0...90 dB, 0...60000 ms; the
    ///   setting before the call then stays).
    @discardableResult
    public func enableBargeIn(_ enabled: Bool, source: (any BargeInSource)? = nil, duckDecibels: Float = 20,
                              duckMilliseconds: Int = 1000) -> NuiResultCode {
        lock.withLock {
            guard (0...90).contains(duckDecibels), (0...60_000).contains(duckMilliseconds) else {
                return refuse("enableBargeIn", .NUI_ERR_INVALID_PARAMETER_VALUE,
                              "duck \(duckDecibels) dB for \(duckMilliseconds) ms: takes 0...90 dB and 0...60000 ms")
            }
            bargeInSource?.setBargeInHandler(nil)
            bargeInSource = nil
            guard enabled else { logger.info("enableBargeIn: off"); return .SUCCESS }
            guard let chosen = source ?? playback?.referenceTarget as? any BargeInSource else {
                return refuse("enableBargeIn", .NUI_ERR_INVALID_PARAMETER_VALUE,
                              "no barge-in source: attach a playback whose reference is a front end or the NeoNui recognizer, or pass one")
            }
            chosen.setBargeInHandler { [weak self] decision in
                if decision.isSuspicion {
                    self?.duck(decision, decibels: duckDecibels, milliseconds: duckMilliseconds)
                } else {
                    self?.bargeIn(decision)
                }
            }
            bargeInSource = chosen
            logger.info("enableBargeIn: on")
            return .SUCCESS
        }
    }

    /// Whether barge-in is on. Any thread.
    public var isBargeInEnabled: Bool { lock.withLock { bargeInSource != nil } }

    /// The source's event thread: duck the answer that plays out, if any.
    private func duck(_ decision: BargeInDecision, decibels: Float, milliseconds: Int) {
        guard let playback = lock.withLock({ playback }), playback.isPlayingOut else { return }
        playback.player.duck(decibels: decibels, milliseconds: milliseconds)
        logger.info("barge-in suspicion at \(decision.milliseconds) ms (mic timeline): playback ducked \(decibels) dB "
                    + "for \(milliseconds) ms")
    }

    /// The source's event thread: stop and end the task, if an answer plays.
    private func bargeIn(_ decision: BargeInDecision) {
        if endTask("barge-in", bargeIn: decision) == .SUCCESS {
            logger.info("barge-in: speech from \(decision.speechStartMilliseconds) ms, decided at \(decision.milliseconds) ms "
                        + "(mic timeline)")
        }
    }
}
