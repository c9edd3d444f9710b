import CNui
import NuiSDK

/// The `NeoNuiSdkDelegate` that forwards NeoNui's callbacks to the C function pointers of one `NuiSdkListener`.
///
/// One bridge per successful `nui_initialize`; its listener never changes, so a callback reads it without a lock.
/// Threads: the callbacks arrive on NeoNui's callback thread (a serial queue: one at a time, in order), and
/// `onNuiNeedAudioData` on NeoNui's audio thread; each is forwarded on the thread it arrived on. Forwarding
/// converts enums by raw value (the C header uses NeoNui's numbers) and replaces null strings with "", so a C
/// callback never sees NULL where the header promises a string. `onNuiNeedAudioData` is real-time safe: it reads
/// two immutable fields and calls the C function.
final class ListenerBridge: NeoNuiSdkDelegate, @unchecked Sendable { // immutable after init
    private let listener: NuiSdkListener

    init(_ listener: NuiSdkListener) { self.listener = listener }

    func onNuiEventCallback(_ nuiEvent: NuiSDK.NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        guard let callback = listener.event_callback else { return }
        let response = NeoNui.get_instance().nui_get_all_response() ?? CStrings.empty
        callback(listener.user_data, CNui.NuiCallbackEvent(rawValue: numericCast(nuiEvent.rawValue)), dialog,
                 wuw ?? CStrings.empty, asr_result ?? CStrings.empty, finish, code, response)
    }

    func onNuiNeedAudioData(_ audioData: UnsafeMutablePointer<CChar>?, length len: Int32) -> Int32 {
        guard let callback = listener.user_data_callback, let audioData, len > 0 else { return 0 }
        return callback(listener.user_data, audioData, len)
    }

    func onNuiAudioStateChanged(_ state: NuiSDK.NuiAudioState) {
        listener.audio_state_changed_callback?(listener.user_data,
                                               CNui.NuiAudioState(rawValue: numericCast(state.rawValue)))
    }

    func onNuiRmsChanged(_ rms: Float) {
        guard let callback = listener.audio_extra_event_callback else { return }
        var level = rms
        withUnsafeMutablePointer(to: &level) { callback(listener.user_data, $0, AudioRmsChanged) }
    }

    func onNuiAssistEventCallback(_ nuiEvent: NuiSDK.NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?,
                                  infoLen info_len: Int32, buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard let callback = listener.assist_event_callback else { return }
        callback(listener.user_data, CNui.NuiCallbackEvent(rawValue: numericCast(nuiEvent.rawValue)),
                 info.map { UnsafePointer($0) } ?? CStrings.empty, info == nil ? 0 : info_len,
                 buffer.map { UnsafePointer($0) } ?? CStrings.empty, buffer == nil ? 0 : len)
    }

    func onNuiLogTrackCallback(_ level: NuiSDK.NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {
        listener.log_track_callback?(listener.user_data, CNui.NuiSdkLogLevel(rawValue: numericCast(level.rawValue)),
                                     log ?? CStrings.empty)
    }
}

/// C strings the bridge hands out that must outlive every call.
enum CStrings {
    /// "" (a static, never-freed C string).
    static let empty: UnsafePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()
}
