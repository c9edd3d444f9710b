/// The `vad_mode` of `nui_dialog_start`. Real-time recognition uses ``MODE_P2T`` (push to talk: the dialog runs
/// until `nui_dialog_cancel`); the other modes of the NUI SDK (wake word, one-shot VAD) are not offered and return
/// ``NuiResultCode/NUI_ERR_UNSUPPORTED_VAD_MODE``.
public enum NuiVadMode: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// One-shot recognition ended by the VAD (not supported).
    case MODE_VAD = 0
    /// Wake-word spotting (not supported).
    case MODE_KWS = 1
    /// Push to talk: the mode for real-time recognition.
    case MODE_P2T = 2

    public var description: String {
        switch self {
        case .MODE_VAD: "MODE_VAD"
        case .MODE_KWS: "MODE_KWS"
        case .MODE_P2T: "MODE_P2T"
        }
    }
}

public let MODE_VAD = NuiVadMode.MODE_VAD
public let MODE_KWS = NuiVadMode.MODE_KWS
public let MODE_P2T = NuiVadMode.MODE_P2T
