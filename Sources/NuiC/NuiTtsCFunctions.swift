import CNui
import Foundation
import NuiSDK
import NuiTTS

// The C ABI of the stream-input TTS SDK (Sources/CNui/include/nui_tts.h), exported from libnui.so. Each handle is a
// retained ``TtsHandle``: a NeoNuiStreamInputTts and the bridge to the C listener (its delegate, held here).

/// One `NuiTtsHandle`: the synthesizer and its listener bridge, and the playback attached to it
/// (`nui_tts_set_playback`; `playback` under `lock`).
final class TtsHandle: @unchecked Sendable {
    let tts = NeoNuiStreamInputTts()
    let bridge: TtsListenerBridge
    private let lock = NSLock()
    private var attached: PlaybackHandle?
    init(_ listener: StreamInputTtsListener) {
        bridge = TtsListenerBridge(listener)
        tts.delegate = bridge
    }

    var playback: PlaybackHandle? {
        get { lock.withLock { attached } }
        set { lock.withLock { attached = newValue } }
    }

    /// Cancels a running task and detaches the playback (`nui_tts_destroy`, `nui_tts_playback_destroy`).
    func detachPlayback() {
        guard let playback else { return }
        _ = tts.cancelStreamInputTts()
        _ = tts.setPlayback(nil)
        playback.release(from: self)
        self.playback = nil
    }
}

/// Forwards NeoNuiStreamInputTts's callbacks to the C function pointers (null strings become ""). Callback thread.
final class TtsListenerBridge: NeoNuiStreamInputTtsDelegate, @unchecked Sendable { // immutable
    let listener: StreamInputTtsListener
    init(_ listener: StreamInputTtsListener) { self.listener = listener }

    func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                       sessionId: UnsafePointer<CChar>?, ret_code: Int32, error_msg: UnsafePointer<CChar>?,
                                       timestamp: UnsafePointer<CChar>?, all_response: UnsafePointer<CChar>?) {
        guard let callback = listener.tts_event_callback else { return }
        let empty = CStrings.empty
        callback(listener.user_data, NuiTtsEvent(rawValue: UInt32(bitPattern: event.rawValue)), taskid ?? empty,
                 sessionId ?? empty, ret_code, error_msg ?? empty, timestamp ?? empty, all_response ?? empty)
    }

    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        listener.tts_data_callback?(listener.user_data, buffer, len)
    }

    func onStreamInputTtsLogTrackCallback(_ level: NuiSDK.NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {
        guard let callback = listener.tts_log_track_callback else { return }
        callback(listener.user_data, level.rawValue, log ?? CStrings.empty)
    }

    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64) {
        listener.tts_playback_event_callback?(listener.user_data, NuiTtsPlaybackEvent(rawValue: UInt32(bitPattern: event.rawValue)),
                                              sessionId ?? CStrings.empty, position_ms)
    }
}

func handle(_ pointer: OpaquePointer?) -> TtsHandle? {
    pointer.map { Unmanaged<TtsHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

private let missing = NuiSDK.NuiResultCode.NUI_ERR_MISSING_PARAMETER.rawValue

private func logLevel(_ value: Int32) -> NuiSDK.NuiSdkLogLevel? { NuiSDK.NuiSdkLogLevel(rawValue: value) }

/// `nui_tts_create`. Not real-time safe.
@_cdecl("nui_tts_create")
public func nui_tts_create(_ listener: UnsafePointer<StreamInputTtsListener>?) -> OpaquePointer? {
    guard let listener else { return nil }
    let made = TtsHandle(listener.pointee)
    made.tts.setLogPrinting(false)
    return OpaquePointer(Unmanaged.passRetained(made).toOpaque())
}

/// `nui_tts_start`. Not real-time safe.
@_cdecl("nui_tts_start")
public func nui_tts_start(_ pointer: OpaquePointer?, _ ticket: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
                          _ sessionId: UnsafePointer<CChar>?, _ level: Int32, _ saveLog: Bool) -> Int32 {
    oneShot(pointer, level) { $0.startStreamInputTts(ticket, parameters: parameters, sessionId: sessionId, logLevel: $1, saveLog: saveLog) }
}

/// `nui_tts_send`. Not real-time safe.
@_cdecl("nui_tts_send")
public func nui_tts_send(_ pointer: OpaquePointer?, _ text: UnsafePointer<CChar>?) -> Int32 {
    handle(pointer)?.tts.sendStreamInputTts(text).rawValue ?? missing
}

/// `nui_tts_stop`: blocks until synthesis completes (bounded by complete_waiting_ms).
@_cdecl("nui_tts_stop")
public func nui_tts_stop(_ pointer: OpaquePointer?) -> Int32 {
    handle(pointer)?.tts.stopStreamInputTts().rawValue ?? missing
}

/// `nui_tts_async_stop`.
@_cdecl("nui_tts_async_stop")
public func nui_tts_async_stop(_ pointer: OpaquePointer?) -> Int32 {
    handle(pointer)?.tts.asyncStopStreamInputTts().rawValue ?? missing
}

/// `nui_tts_cancel`.
@_cdecl("nui_tts_cancel")
public func nui_tts_cancel(_ pointer: OpaquePointer?) -> Int32 {
    handle(pointer)?.tts.cancelStreamInputTts().rawValue ?? missing
}

/// `nui_tts_play`. Not real-time safe.
@_cdecl("nui_tts_play")
public func nui_tts_play(_ pointer: OpaquePointer?, _ ticket: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
                         _ text: UnsafePointer<CChar>?, _ sessionId: UnsafePointer<CChar>?, _ level: Int32,
                         _ saveLog: Bool) -> Int32 {
    oneShot(pointer, level) { $0.playStreamInputTts(ticket, parameters: parameters, text: text, sessionId: sessionId, logLevel: $1, saveLog: saveLog) }
}

/// `nui_tts_async_play`. Not real-time safe.
@_cdecl("nui_tts_async_play")
public func nui_tts_async_play(_ pointer: OpaquePointer?, _ ticket: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
                               _ text: UnsafePointer<CChar>?, _ sessionId: UnsafePointer<CChar>?, _ level: Int32,
                               _ saveLog: Bool) -> Int32 {
    oneShot(pointer, level) { $0.asyncPlayStreamInputTts(ticket, parameters: parameters, text: text, sessionId: sessionId, logLevel: $1, saveLog: saveLog) }
}

/// A call that takes a log level: the handle and the level checked first.
private func oneShot(_ pointer: OpaquePointer?, _ level: Int32,
                     _ call: (NeoNuiStreamInputTts, NuiSDK.NuiSdkLogLevel) -> NuiSDK.NuiResultCode) -> Int32 {
    guard let sdk = handle(pointer)?.tts else { return missing }
    guard let level = logLevel(level) else { return NuiSDK.NuiResultCode.NUI_ERR_INVALID_PARAMETER_VALUE.rawValue }
    return call(sdk, level).rawValue
}

/// `nui_tts_destroy`: cancels a running task, detaches its playback, drops the delegate (queued callbacks are not
/// forwarded), frees.
@_cdecl("nui_tts_destroy")
public func nui_tts_destroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    let unmanaged = Unmanaged<TtsHandle>.fromOpaque(UnsafeRawPointer(pointer))
    let made = unmanaged.takeUnretainedValue()
    _ = made.tts.cancelStreamInputTts()
    made.detachPlayback()
    made.tts.delegate = nil
    unmanaged.release()
}

/// The version text (static, never freed, never written: safe to share between threads).
nonisolated(unsafe) private let ttsVersion = UnsafePointer<CChar>(strdup(NeoNuiStreamInputTts.version)!)

/// `nui_tts_get_version`: a static string.
@_cdecl("nui_tts_get_version")
public func nui_tts_get_version() -> UnsafePointer<CChar> { ttsVersion }
