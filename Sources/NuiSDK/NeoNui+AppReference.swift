import AudioFrontEnd

/// The app's own sounds while an SDK playback is the reference: the playback (NuiTTS's `StreamInputTtsPlayback`
/// with this instance as its reference) pushes every buffer it hands to the device through
/// ``pushReference(samples:)``, and `nui_push_reference_data` — the app's earcons and music, played through its
/// own output — goes into ``appReference``, which the playback's render adds to the buffer it pushes: one
/// reference stream with both sounds in it, instead of two interleaved. `play_start` / `play_over` from the app
/// then mark the app's sound, and the front end is told "playing" while either it or the playback's speech plays
/// (the playback's render reports the combination through ``setPlaying(_:)``). With no playback attached,
/// everything goes to the front end directly, as before.
extension NeoNui {
    /// Samples of the app's sounds that may wait for the playback's render (≈ 2 s at 16 kHz, 0.68 s at 48 kHz);
    /// beyond it `nui_push_reference_data` returns `NUI_ERR_AUDIO_BUFFER_FULL` and the rest is dropped and
    /// counted (``ReferenceMix/overflowSamples``).
    public static let appReferenceCapacity = 32768

    /// A playback at `sampleRate` takes this instance as its reference: the first one attached mixes the app's
    /// reference pushes (the return value); a second one gets nil (its buffers are pushed, the app's sounds go to
    /// the first). While any is attached, `nui_set_params` refuses another `nls_config.sample_rate`
    /// (`NUI_ERR_UNSUPPORTED_SAMPLE_RATE`): the playback renders at the rate it was made for. Control thread.
    public func attachPlayback(sampleRate: Int, channelCount: Int) -> ReferenceMix? {
        lock.withLock { () -> ReferenceMix? in
            referencedPlaybacks += 1
            referencedRate = sampleRate
            guard !appReferenceAttached.load(ordering: .acquiring) else { return nil }
            appReference.reset()
            appReferenceAttached.store(true, ordering: .releasing)
            return appReference
        }
    }

    /// The playback is closed; with `mix` (the first's) the app's reference pushes go to the front end again.
    /// Control thread.
    public func detachPlayback(_ mix: ReferenceMix?) {
        lock.withLock {
            referencedPlaybacks = max(0, referencedPlaybacks - 1)
            if mix === appReference { appReferenceAttached.store(false, ordering: .releasing) }
        }
    }

    /// Whether a playback mixes the app's reference pushes now. Any thread.
    public var isMixingAppReference: Bool { appReferenceAttached.load(ordering: .acquiring) }

    /// `nui_push_reference_data`'s bytes into the attached playback's mix, or nil when none is attached (the
    /// caller pushes to the front end). Real-time safe.
    func pushAppReference(_ bytes: UnsafeRawBufferPointer) -> NuiResultCode? {
        guard appReferenceAttached.load(ordering: .acquiring) else { return nil }
        let result = appReference.push(samples: bytes.bindMemory(to: Int16.self))
        return result.status == .ok ? .SUCCESS : .NUI_ERR_AUDIO_BUFFER_FULL
    }

    /// `play_start` / `play_over` of the app while a playback mixes its sounds: the app's sound, combined with the
    /// playback's speech by the playback's render. Returns false when no playback is attached. Any thread.
    func setAppPlaying(_ isPlaying: Bool) -> Bool {
        guard appReferenceAttached.load(ordering: .acquiring) else { return false }
        appReference.setAppPlaying(isPlaying)
        return true
    }

    /// `nui_set_params`' refusal of a rate other than the attached playbacks'. Control thread.
    func refuseRateChange(to sampleRate: Int) -> NuiResultCode? {
        let (count, rate) = lock.withLock { (referencedPlaybacks, referencedRate) }
        guard count > 0, sampleRate != rate else { return nil }
        return refuse("nui_set_params", .NUI_ERR_UNSUPPORTED_SAMPLE_RATE,
                      "nls_config.sample_rate \(sampleRate): \(count) playback(s) render the reference at \(rate) Hz; close them first")
    }
}
