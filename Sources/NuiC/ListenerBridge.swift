import AudioFrontEnd
import CNui
import Foundation
import NuiSDK
import Synchronization
import Threads

/// The `NeoNuiSdkDelegate` that forwards NeoNui's callbacks to the C function pointers of one `NuiSdkListener`.
///
/// One bridge per successful `nui_initialize`; its listener never changes, so a callback reads it without a lock.
/// Threads: the callbacks arrive on NeoNui's callback thread (a serial queue: one at a time, in order), and
/// `onNuiNeedAudioData` on NeoNui's audio thread; each is forwarded on the thread it arrived on. Forwarding
/// converts enums by raw value (the C header uses NeoNui's numbers) and replaces null strings with "", so a C
/// callback never sees NULL where the header promises a string. `onNuiNeedAudioData` is real-time safe: it reads
/// immutable fields and an atomic and calls the C function.
///
/// The bridge closes itself once it has forwarded `STATE_CLOSE`: nothing reaches the C listener after that, and
/// ``waitUntilClosed(timeout:)`` lets `nui_release` return only then, so a C app may free its `user_data` as soon
/// as `nui_release` returns.
final class ListenerBridge: NeoNuiSdkDelegate, @unchecked Sendable { // listener immutable; the rest atomic
    private let listener: NuiSdkListener
    private let closed = Atomic<Bool>(false)
    private let closing = DispatchSemaphore(value: 0)
    /// The thread inside a forwarded callback (pthread_t), or 0.
    private let deliveringThread = Atomic<UInt>(0)

    init(_ listener: NuiSdkListener) { self.listener = listener }

    /// Waits until `STATE_CLOSE` was forwarded, unless called from inside a callback of this bridge (then the
    /// close follows once that callback returns). Not real-time safe.
    func waitUntilClosed(timeout: TimeInterval = 5) {
        guard !closed.load(ordering: .acquiring),
              deliveringThread.load(ordering: .relaxed) != currentThreadKey() else { return }
        _ = closing.wait(timeout: .now() + timeout)
    }

    /// Runs `body` unless the bridge is closed, marking this thread as inside a callback meanwhile.
    private func forward(_ body: () -> Void) {
        guard !closed.load(ordering: .acquiring) else { return }
        deliveringThread.store(currentThreadKey(), ordering: .relaxed)
        body()
        deliveringThread.store(0, ordering: .relaxed)
    }

    /// The C value of an event (the same number).
    private func cEvent(_ event: NuiSDK.NuiCallbackEvent) -> CNui.NuiCallbackEvent {
        CNui.NuiCallbackEvent(rawValue: .init(truncatingIfNeeded: event.rawValue))
    }

    func onNuiEventCallback(_ nuiEvent: NuiSDK.NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        guard let callback = listener.event_callback else { return }
        forward {
            let response = NeoNui.get_instance().nui_get_all_response() ?? CStrings.empty
            callback(listener.user_data, cEvent(nuiEvent), dialog,
                     wuw ?? CStrings.empty, asr_result ?? CStrings.empty, finish, code, response)
        }
    }

    func onNuiNeedAudioData(_ audioData: UnsafeMutablePointer<CChar>?, length len: Int32) -> Int32 {
        guard let callback = listener.user_data_callback, let audioData, len > 0,
              !closed.load(ordering: .acquiring) else { return 0 }
        return callback(listener.user_data, audioData, len)
    }

    func onNuiAudioStateChanged(_ state: NuiSDK.NuiAudioState) {
        let cState = CNui.NuiAudioState(rawValue: .init(truncatingIfNeeded: state.rawValue))
        forward { listener.audio_state_changed_callback?(listener.user_data, cState) }
        if state == .STATE_CLOSE, !closed.exchange(true, ordering: .acquiringAndReleasing) { closing.signal() }
    }

    func onNuiRmsChanged(_ rms: Float) {
        guard let callback = listener.audio_extra_event_callback else { return }
        var level = rms
        forward { withUnsafeMutablePointer(to: &level) { callback(listener.user_data, $0, AudioRmsChanged) } }
    }

    func onNuiAssistEventCallback(_ nuiEvent: NuiSDK.NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?,
                                  infoLen info_len: Int32, buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard let callback = listener.assist_event_callback else { return }
        forward {
            callback(listener.user_data, cEvent(nuiEvent),
                     info.map { UnsafePointer($0) } ?? CStrings.empty, info == nil ? 0 : info_len,
                     buffer.map { UnsafePointer($0) } ?? CStrings.empty, buffer == nil ? 0 : len)
        }
    }

    func onNuiLogTrackCallback(_ level: NuiSDK.NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {
        let cLevel = CNui.NuiSdkLogLevel(rawValue: .init(truncatingIfNeeded: level.rawValue))
        forward { listener.log_track_callback?(listener.user_data, cLevel, log ?? CStrings.empty) }
    }
}

/// C strings the bridge hands out that must outlive every call.
enum CStrings {
    /// "" (a static, never-freed, never-written C string, so sharing it between threads is safe).
    nonisolated(unsafe) static let empty: UnsafePointer<CChar> = {
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()
}
