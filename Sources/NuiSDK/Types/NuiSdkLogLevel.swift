/// Log levels: the `logLevel` of `nui_initialize` (what the SDK prints), the `log_track_level` parameter and the
/// level passed to `onNuiLogTrackCallback`. A smaller value logs more. The numbers are the documented ones
/// (`log_track_level`: 0 verbose … 5 none).
public enum NuiSdkLogLevel: Int32, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case NUI_LOG_LEVEL_VERBOSE = 0
    case NUI_LOG_LEVEL_DEBUG = 1
    case NUI_LOG_LEVEL_INFO = 2
    case NUI_LOG_LEVEL_WARNING = 3
    case NUI_LOG_LEVEL_ERROR = 4
    /// Nothing is logged.
    case NUI_LOG_LEVEL_NONE = 5

    /// The short spelling the `log_track_level` documentation uses (`LOG_LEVEL_VERBOSE` …).
    public static let LOG_LEVEL_VERBOSE = NuiSdkLogLevel.NUI_LOG_LEVEL_VERBOSE
    public static let LOG_LEVEL_DEBUG = NuiSdkLogLevel.NUI_LOG_LEVEL_DEBUG
    public static let LOG_LEVEL_INFO = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO
    public static let LOG_LEVEL_WARNING = NuiSdkLogLevel.NUI_LOG_LEVEL_WARNING
    public static let LOG_LEVEL_ERROR = NuiSdkLogLevel.NUI_LOG_LEVEL_ERROR
    public static let LOG_LEVEL_NONE = NuiSdkLogLevel.NUI_LOG_LEVEL_NONE

    public static func < (lhs: NuiSdkLogLevel, rhs: NuiSdkLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The letter written in front of a log line: V, D, I, W, E.
    public var description: String {
        switch self {
        case .NUI_LOG_LEVEL_VERBOSE: "V"
        case .NUI_LOG_LEVEL_DEBUG: "D"
        case .NUI_LOG_LEVEL_INFO: "I"
        case .NUI_LOG_LEVEL_WARNING: "W"
        case .NUI_LOG_LEVEL_ERROR: "E"
        case .NUI_LOG_LEVEL_NONE: "-"
        }
    }
}

public let NUI_LOG_LEVEL_VERBOSE = NuiSdkLogLevel.NUI_LOG_LEVEL_VERBOSE
public let NUI_LOG_LEVEL_DEBUG = NuiSdkLogLevel.NUI_LOG_LEVEL_DEBUG
public let NUI_LOG_LEVEL_INFO = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO
public let NUI_LOG_LEVEL_WARNING = NuiSdkLogLevel.NUI_LOG_LEVEL_WARNING
public let NUI_LOG_LEVEL_ERROR = NuiSdkLogLevel.NUI_LOG_LEVEL_ERROR
public let NUI_LOG_LEVEL_NONE = NuiSdkLogLevel.NUI_LOG_LEVEL_NONE
public let LOG_LEVEL_VERBOSE = NuiSdkLogLevel.NUI_LOG_LEVEL_VERBOSE
public let LOG_LEVEL_DEBUG = NuiSdkLogLevel.NUI_LOG_LEVEL_DEBUG
public let LOG_LEVEL_INFO = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO
public let LOG_LEVEL_WARNING = NuiSdkLogLevel.NUI_LOG_LEVEL_WARNING
public let LOG_LEVEL_ERROR = NuiSdkLogLevel.NUI_LOG_LEVEL_ERROR
public let LOG_LEVEL_NONE = NuiSdkLogLevel.NUI_LOG_LEVEL_NONE
