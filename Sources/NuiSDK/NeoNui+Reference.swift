import AudioFrontEnd

extension NeoNui {
    /// The played audio as the echo reference, as samples: the path of ``nui_push_reference_data(_:Len:FirstPack:)``
    /// for a player that hands over what it plays (NuiTTS's `StreamInputTtsPlayback` with this instance as its
    /// reference: `NeoNui` is then its `EchoReferenceSink`). 16-bit mono at `nls_config.sample_rate`
    /// (``referenceSampleRate``), at most ``maximumPushMilliseconds`` per call.
    ///
    /// Before the first `nui_dialog_start` there is no front end (it needs `nui_set_params`' rates and is made
    /// at the first dialog), and so no mic to align with: the samples are not taken (``PushStatus/notRunning``,
    /// `accepted` 0) and the player counts them as refused. From the first dialog to `nui_release` every push is
    /// taken, between dialogs too (the canceller keeps converging). Also not taken (``PushStatus/notRunning``):
    /// before `nui_initialize`, in pull mode, with AEC off. The first sample a front end takes is placed at its
    /// mic's position then (`FrontEnd.startReferenceAtMic()`): a player whose buffer the first dialog split (its
    /// reference refused, its echo taken as mic) is not read a buffer before it arrives.
    ///
    /// Real-time safe (no lock, no allocation, never blocks); one playback thread at a time.
    public func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        let refused = PushResult(status: .notRunning, accepted: 0)
        guard phase.load(ordering: .acquiring) != State.uninitialized.rawValue, manualAudio.load(ordering: .acquiring) else {
            return refused
        }
        return slot.withDialog { dialog -> PushResult in
            guard dialog.echoCancellation else { return refused }
            guard !samples.isEmpty else { return PushResult(status: .ok, accepted: 0) }
            dialog.startReferenceAtMic() // what a player hands the device now: it starts at the mic's position
            return dialog.pushReference(samples: samples)
        } ?? refused
    }

    /// The playback hint, as `nui_dialog_action`'s `play_start` (`true`) / `play_over` (`false`), from the
    /// playback thread: to the running dialog's front end, or between dialogs to the engine's; a hint given before
    /// the first dialog is kept and handed to its front end when it starts.
    ///
    /// Real-time safe (no lock, no allocation, no JSON); any thread.
    public func setPlaying(_ isPlaying: Bool) {
        playingHint.store(isPlaying ? 1 : 0, ordering: .sequentiallyConsistent)
        _ = slot.withDialog { $0.setPlaying(isPlaying) }
    }

    /// The rate of the reference the front end expects (mono 16-bit): `nls_config.sample_rate` of the last
    /// accepted `nui_set_params`, nil before. Any thread.
    public var referenceSampleRate: Int? { lock.withLock { recognition?.sampleRate } }

    /// Hands the last ``setPlaying(_:)`` hint to a dialog's front end just installed in the push paths.
    /// Control thread. The hint is read after the install, and again after it was applied: a hint given meanwhile
    /// saw the dialog installed and is applied last.
    func applyPlayingHint(to audio: DialogAudio) {
        var hint = playingHint.load(ordering: .sequentiallyConsistent)
        while hint >= 0 {
            audio.setPlaying(hint == 1)
            let now = playingHint.load(ordering: .sequentiallyConsistent)
            if now == hint { break }
            hint = now
        }
    }
}
