/// What `onNuiAudioStateChanged` tells the app to do with its recorder.
public enum NuiAudioState: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// The interaction started (`nui_dialog_start`): open the recorder and start recording.
    case STATE_OPEN = 0
    /// The interaction stopped (`nui_dialog_cancel`, or the task ended): stop recording.
    case STATE_PAUSE = 1
    /// The SDK was released (`nui_release`): close the recorder completely.
    case STATE_CLOSE = 2

    public var description: String {
        switch self {
        case .STATE_OPEN: "STATE_OPEN"
        case .STATE_PAUSE: "STATE_PAUSE"
        case .STATE_CLOSE: "STATE_CLOSE"
        }
    }
}

public let STATE_OPEN = NuiAudioState.STATE_OPEN
public let STATE_PAUSE = NuiAudioState.STATE_PAUSE
public let STATE_CLOSE = NuiAudioState.STATE_CLOSE
