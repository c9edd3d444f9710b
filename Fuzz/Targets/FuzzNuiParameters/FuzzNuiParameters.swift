import NuiSDK

// libFuzzer target: NUI parameter JSON through the parsers of nui_initialize, nui_set_params (DashScope and NLS),
// nui_dialog_start and nui_dialog_action (NuiParameterProbe.run(fuzzInput:), which documents the input's layout).
// A crash, a trap or a sanitizer report is a finding; any result code is fine.
// Tests/NuiSDKTests/FuzzRegressionTests replays Fuzz/regressions/FuzzNuiParameters.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNuiParameters(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    NuiParameterProbe.run(fuzzInput: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
