import AudioFrontEnd

extension NeoNui {
    /// The most audio one push takes, ms (`NUI_MAX_PUSH_MS` in nui.h): ``AudioFrontEnd/FrontEnd/maximumPushMilliseconds``.
    public static let maximumPushMilliseconds = FrontEnd.maximumPushMilliseconds

    /// Push mode (`audio_update_manually` true): the mic audio, 16-bit little-endian mono PCM at
    /// `nls_config.sample_rate`, in chunks of any size.
    ///
    /// Real-time safe (no lock, no allocation, never blocks); call from one audio thread at a time. One call
    /// takes at most ``NeoNui/maximumPushMilliseconds`` (1 s: 32,000 bytes at 16 kHz); of a longer chunk the first
    /// second is processed and the rest dropped, counted in the summary's drops, and `NUI_ERR_AUDIO_BUFFER_FULL`
    /// returned. The corresponding Objective-C call is `-nui_update_audio_data:Len:FirstPack:`.
    /// - Parameters:
    ///   - data: the PCM bytes.
    ///   - length: their count in bytes (even).
    ///   - first_pack: not used (as documented).
    /// - Returns: `SUCCESS`, `NUI_ERR_NOT_INITIALIZED`, `NUI_ERR_MANUAL_AUDIO_DISABLED`, `NUI_ERR_NO_DIALOG`,
    ///   `NUI_ERR_INVALID_AUDIO_DATA`, `NUI_ERR_AUDIO_BUFFER_FULL` (the rest was dropped and counted) or
    ///   `NUI_ERR_CONCURRENT_AUDIO_PUSH`.
    @discardableResult
    public func nui_update_audio_data(_ data: UnsafePointer<CChar>?, Len length: Int32, FirstPack first_pack: Bool) -> NuiResultCode {
        push(data, length, reference: false)
    }

    /// ``nui_update_audio_data(_:Len:FirstPack:)`` with lower-case labels.
    @discardableResult
    public func nui_update_audio_data(_ data: UnsafePointer<CChar>?, len length: Int32, firstPack first_pack: Bool) -> NuiResultCode {
        push(data, length, reference: false)
    }

    /// Push mode with on-device AEC: the audio the device plays (the reference), 16-bit little-endian mono PCM at
    /// `nls_config.sample_rate`, as it is played.
    ///
    /// Real-time safe; call from one playback thread at a time; at most 1 s per call, as for the mic. While a
    /// playback has this instance as its reference (NuiTTS's `StreamInputTtsPlayback`), these are the app's own
    /// sounds: mixed into the reference the playback pushes (between dialogs too), not pushed beside it — see
    /// `NeoNui+AppReference.swift`. The corresponding Objective-C call is
    /// `-nui_push_reference_data:Len:FirstPack:`.
    /// - Returns: as ``nui_update_audio_data(_:Len:FirstPack:)``, and `NUI_ERR_AEC_DISABLED` when AEC is off.
    @discardableResult
    public func nui_push_reference_data(_ data: UnsafePointer<CChar>?, Len length: Int32, FirstPack first_pack: Bool) -> NuiResultCode {
        push(data, length, reference: true)
    }

    /// ``nui_push_reference_data(_:Len:FirstPack:)`` with lower-case labels.
    @discardableResult
    public func nui_push_reference_data(_ data: UnsafePointer<CChar>?, len length: Int32, firstPack first_pack: Bool) -> NuiResultCode {
        push(data, length, reference: true)
    }

    private func push(_ data: UnsafePointer<CChar>?, _ length: Int32, reference: Bool) -> NuiResultCode {
        let current = State(rawValue: phase.load(ordering: .acquiring)) ?? .uninitialized
        guard current != .uninitialized else { return .NUI_ERR_NOT_INITIALIZED }
        guard manualAudio.load(ordering: .acquiring) else { return .NUI_ERR_MANUAL_AUDIO_DISABLED }
        guard let data, length >= 0, length % 2 == 0 else { return .NUI_ERR_INVALID_AUDIO_DATA }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
        return slot.withDialog { dialog -> NuiResultCode in
            if reference && !dialog.echoCancellation { return .NUI_ERR_AEC_DISABLED }
            if length == 0 { return .SUCCESS }
            if reference, let mixed = pushAppReference(bytes) { return mixed }
            return NuiResultCode(reference ? dialog.pushReference(bytes).status : dialog.pushMic(bytes).status)
        } ?? (reference ? pushAppReference(bytes) : nil) ?? .NUI_ERR_NO_DIALOG
    }
}
