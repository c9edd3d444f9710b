import NuiSDK

/// A refused NUI call or a failed dialog, as the one line `afe` prints (exit status 1, as a run that failed;
/// bad options exit 2).
struct NuiFailure: Error {
    let message: String

    /// What went wrong, for the result codes a stream meets; the code's name and number follow.
    static let messages: [NuiResultCode: String] = [
        .NUI_ERR_CONNECTION_REFUSED: "connection refused: nothing listens at the URL",
        .NUI_ERR_UNKNOWN_HOST: "unknown host: the URL's host name does not resolve",
        .NUI_ERR_TLS: "TLS handshake failed",
        .NUI_ERR_UNAUTHORIZED: "unauthorized: the service refused the API key (HTTP 401)",
        .NUI_ERR_FORBIDDEN: "forbidden: the service refused the token (HTTP 403)",
        .NUI_ERR_HANDSHAKE_FAILED: "the WebSocket upgrade failed",
        .NUI_ERR_CONNECT_TIMEOUT: "no connection within the connect timeout",
        .NUI_ERR_START_TIMEOUT: "the service did not confirm the task start in time",
        .NUI_ERR_FINISH_TIMEOUT: "the service did not finish the task in time",
        .NUI_ERR_SERVER_NOT_RESPONDING: "the service stopped answering",
        .NUI_ERR_CONNECTION_CLOSED: "the connection closed while the task ran",
        .NUI_ERR_CONNECTION_FAILED: "the connection failed",
        .NUI_ERR_TASK_FAILED: "the service failed the task",
        .NUI_ERR_MALFORMED_MESSAGE: "the service broke the protocol",
        .NUI_ERR_UNSUPPORTED_SAMPLE_RATE: "the sample rate is not supported (NLS takes 8000 or 16000 Hz; AEC and VAD not 8000)",
        .NUI_ERR_INVALID_PATH: "--debug-path is not a usable directory",
        .NUI_ERR_FRONT_END: "the on-device front end refused its settings",
        .NUI_ERR_INVALID_PARAMETER_VALUE: "a parameter value is out of range or holds control characters (CR, LF, …)",
        .NUI_ERR_MIC_NO_DATA: "no mic audio for 2 seconds",
    ]

    /// A dialog's EVENT_ASR_ERROR (its code and message) as the one line.
    static func dialog(_ call: String, retCode code: Int32, result: UnsafePointer<CChar>?) -> NuiFailure {
        failure(call, NuiResultCode(rawValue: code) ?? .NUI_ERR_INTERNAL, detail: result.map { String(cString: $0) })
    }

    /// `call` (or the dialog) ended with `code`; `detail` is the SDK's message, if any.
    static func failure(_ call: String, _ code: NuiResultCode, detail: String? = nil) -> NuiFailure {
        var text = "\(call): \(messages[code] ?? "failed") (\(code.name) \(code.rawValue))"
        if let detail, !detail.isEmpty { text += ": " + detail }
        return NuiFailure(message: text.split(separator: "\n").joined(separator: " "))
    }
}
