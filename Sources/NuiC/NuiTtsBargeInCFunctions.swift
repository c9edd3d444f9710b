import CNui
import NuiSDK
import NuiTTS

// Barge-in through the C ABI (nui_tts.h `nui_tts_enable_barge_in`, nui_tts_listener.h `tts_interrupted_callback`).

extension TtsListenerBridge {
    /// The interruption to the C listener, strings valid during the call. Callback thread.
    func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption) {
        guard let callback = listener.tts_interrupted_callback else { return }
        let userData = listener.user_data
        interruption.sessionId.withCString { session in
            (interruption.textHeard ?? "").withCString { text in
                var c = NuiTtsInterruption(
                    session_id: session, position_ms: interruption.positionMilliseconds,
                    position_samples: Int64(interruption.positionSamples), sample_rate: Int32(interruption.sampleRate),
                    words_heard: Int32(interruption.wordsHeard ?? -1), characters_heard: Int32(interruption.charactersHeard ?? -1),
                    text_heard: text, speech_start_ms: Int64(interruption.decision.speechStartMilliseconds),
                    decision_ms: Int64(interruption.decision.milliseconds))
                callback(userData, &c)
            }
        }
    }
}

/// `nui_tts_enable_barge_in`: the attached playback's reference (the ASR SDK) decides. Any thread but a
/// real-time one.
@_cdecl("nui_tts_enable_barge_in")
public func nui_tts_enable_barge_in(_ pointer: OpaquePointer?, _ enabled: Bool) -> Int32 {
    guard let tts = handle(pointer) else { return NuiSDK.NuiResultCode.NUI_ERR_MISSING_PARAMETER.rawValue }
    return tts.tts.enableBargeIn(enabled).rawValue
}
