import AudioFrontEnd
import SpeechStreaming
import VoiceRecognition

/// The one place where errors of the layers below become NUI result codes.
extension NuiResultCode {
    /// The code for a failed dialog (`retCode` of `EVENT_ASR_ERROR`, or what `nui_dialog_start` returns).
    init(_ error: RecognitionError) {
        switch error {
        case .invalidConfiguration: self = .NUI_ERR_INVALID_PARAMETER_VALUE
        case .invalidState: self = .NUI_ERR_INTERNAL
        case .frontEnd: self = .NUI_ERR_FRONT_END
        case .service(let error): self = NuiResultCode(error.code)
        }
    }

    /// The code for a streaming-client error code.
    package init(_ code: SpeechStreamingError.Code) {
        let table: [SpeechStreamingError.Code: NuiResultCode] = [
            .invalidConfiguration: .NUI_ERR_INVALID_PARAMETER_VALUE,
            .textLimit: .NUI_ERR_INVALID_PARAMETER_VALUE,
            .invalidState: .NUI_ERR_INTERNAL,
            .taskNotRunning: .NUI_ERR_NO_DIALOG, // nui_dialog_action on a dialog that just ended on its own
            .connectionRefused: .NUI_ERR_CONNECTION_REFUSED,
            .unknownHost: .NUI_ERR_UNKNOWN_HOST,
            .tlsFailure: .NUI_ERR_TLS,
            .unauthorized: .NUI_ERR_UNAUTHORIZED,
            .forbidden: .NUI_ERR_FORBIDDEN,
            .handshakeFailed: .NUI_ERR_HANDSHAKE_FAILED,
            .connectTimeout: .NUI_ERR_CONNECT_TIMEOUT,
            .startTimeout: .NUI_ERR_START_TIMEOUT,
            .finishTimeout: .NUI_ERR_FINISH_TIMEOUT,
            .serverNotResponding: .NUI_ERR_SERVER_NOT_RESPONDING,
            .connectionClosed: .NUI_ERR_CONNECTION_CLOSED,
            .taskFailed: .NUI_ERR_TASK_FAILED,
            .malformedMessage: .NUI_ERR_MALFORMED_MESSAGE,
            .oversizedMessage: .NUI_ERR_MALFORMED_MESSAGE,
            .protocolViolation: .NUI_ERR_MALFORMED_MESSAGE,
            .connectionFailed: .NUI_ERR_CONNECTION_FAILED,
        ]
        self = table[code] ?? .NUI_ERR_CONNECTION_FAILED
    }

    /// The code for a push's status.
    init(_ status: PushStatus) {
        switch status {
        case .ok: self = .SUCCESS
        case .bufferFull: self = .NUI_ERR_AUDIO_BUFFER_FULL
        case .notRunning: self = .NUI_ERR_NO_DIALOG
        case .concurrentPush: self = .NUI_ERR_CONCURRENT_AUDIO_PUSH
        }
    }
}
