import CNui
import NuiSDK

// The C ABI of the NUI SDK: the functions declared in Sources/CNui/include/nui.h, exported with their C names
// from the shared library `libnui` (SwiftPM product `nui`). Each forwards to `NeoNui.get_instance()`.
// Enums arrive as C enums (any 32-bit value a C caller may pass): a value NeoNui does not know is answered with a
// result code, never trapped on. Results are NeoNui's `NuiResultCode` raw values.

private var nui: NeoNui { NeoNui.get_instance() }

private func code(_ result: NuiSDK.NuiResultCode) -> Int32 { result.rawValue }

/// `nui_initialize`: copies `listener` into a new ``ListenerBridge``, makes it NeoNui's delegate and initializes.
/// Not real-time safe. The C function it stands for is `nui_initialize` in nui.h.
@_cdecl("nui_initialize")
public func nui_initialize(_ parameters: UnsafePointer<CChar>?, _ listener: UnsafePointer<NuiSdkListener>?,
                           _ level: CNui.NuiSdkLogLevel, _ saveLog: Bool) -> Int32 {
    guard let listener else { return code(.NUI_ERR_MISSING_PARAMETER) }
    guard let logLevel = NuiSDK.NuiSdkLogLevel(rawValue: Int32(truncatingIfNeeded: level.rawValue)) else {
        return code(.NUI_ERR_INVALID_PARAMETER_VALUE)
    }
    return CRegistration.initialize(ListenerBridge(listener.pointee)) { delegate in
        let sdk = nui
        sdk.delegate = delegate
        return sdk.nui_initialize(parameters, logLevel: logLevel, saveLog: saveLog)
    }
}

/// `nui_set_params`. Not real-time safe.
@_cdecl("nui_set_params")
public func nui_set_params(_ params: UnsafePointer<CChar>?) -> Int32 {
    code(nui.nui_set_params(params))
}

/// `nui_dialog_start`. Not real-time safe.
@_cdecl("nui_dialog_start")
public func nui_dialog_start(_ vadMode: CNui.NuiVadMode, _ dialogParams: UnsafePointer<CChar>?) -> Int32 {
    guard let mode = NuiSDK.NuiVadMode(rawValue: Int32(truncatingIfNeeded: vadMode.rawValue)) else {
        return code(.NUI_ERR_UNSUPPORTED_VAD_MODE)
    }
    return code(nui.nui_dialog_start(mode, dialogParam: dialogParams))
}

/// `nui_dialog_action`. Not real-time safe.
@_cdecl("nui_dialog_action")
public func nui_dialog_action(_ actionParams: UnsafePointer<CChar>?) -> Int32 {
    code(nui.nui_dialog_action(actionParams))
}

/// `nui_update_audio_data`. Real-time safe (NeoNui's push: no allocation, lock or wait).
@_cdecl("nui_update_audio_data")
public func nui_update_audio_data(_ data: UnsafePointer<CChar>?, _ length: Int32, _ firstPack: Bool) -> Int32 {
    code(nui.nui_update_audio_data(data, len: length, firstPack: firstPack))
}

/// `nui_push_reference_data`. Real-time safe (NeoNui's push: no allocation, lock or wait).
@_cdecl("nui_push_reference_data")
public func nui_push_reference_data(_ data: UnsafePointer<CChar>?, _ length: Int32, _ firstPack: Bool) -> Int32 {
    code(nui.nui_push_reference_data(data, len: length, firstPack: firstPack))
}

/// `nui_dialog_cancel`. Not real-time safe.
@_cdecl("nui_dialog_cancel")
public func nui_dialog_cancel(_ force: Bool) -> Int32 {
    code(nui.nui_dialog_cancel(force))
}

/// `nui_release`. Not real-time safe.
@_cdecl("nui_release")
public func nui_release() -> Int32 {
    CRegistration.release { nui.nui_release() }
}

/// `nui_get_version`: a static string after `nui_initialize`, "" before (as NeoNui's, which is null then); never NULL.
@_cdecl("nui_get_version")
public func nui_get_version() -> UnsafePointer<CChar> {
    nui.nui_get_version() ?? CStrings.empty
}

/// `nui_get_all_response`: the current event's JSON, "" before the first event; never NULL.
@_cdecl("nui_get_all_response")
public func nui_get_all_response() -> UnsafePointer<CChar> {
    nui.nui_get_all_response() ?? CStrings.empty
}
