/// What every NeoNui call returns, and the `retCode` of `EVENT_ASR_ERROR` and `EVENT_MIC_ERROR`.
///
/// The NUI documentation refers to an error-code table without giving it; this is ours, published in
/// `Sources/NuiSDK/ResultCodes.md` and never renumbered. `SUCCESS` is 0; errors are 240000 and up, grouped by
/// hundreds: calls and state (2400xx), parameters (2401xx), audio (2402xx), connection and server (2403xx).
public enum NuiResultCode: Int32, Sendable, CaseIterable, Error {
    case SUCCESS = 0

    // Calls and state.
    /// `nui_initialize` while already initialized (call `nui_release` first).
    case NUI_ERR_ALREADY_INITIALIZED = 240001
    /// A call other than `nui_initialize` before `nui_initialize` (or after `nui_release`).
    case NUI_ERR_NOT_INITIALIZED = 240002
    /// `nui_set_params` or `nui_dialog_start` while a dialog runs.
    case NUI_ERR_DIALOG_RUNNING = 240003
    /// `nui_dialog_action`, `nui_update_audio_data`, `nui_push_reference_data` or `nui_dialog_cancel` with no dialog.
    case NUI_ERR_NO_DIALOG = 240004
    /// `nui_dialog_start` before a successful `nui_set_params`.
    case NUI_ERR_PARAMS_NOT_SET = 240005
    /// `nui_update_audio_data` or `nui_push_reference_data` while `audio_update_manually` is false (pull mode).
    case NUI_ERR_MANUAL_AUDIO_DISABLED = 240006
    /// `nui_dialog_start` with a `vad_mode` other than `MODE_P2T`.
    case NUI_ERR_UNSUPPORTED_VAD_MODE = 240007

    // Parameters: the log names the key.
    /// The parameter text is null, not JSON, or not a JSON object.
    case NUI_ERR_INVALID_JSON = 240100
    /// A required key is missing (e.g. `url`, `apikey`, `nls_config.sr_format`, `debug_path` with save_log).
    case NUI_ERR_MISSING_PARAMETER = 240101
    /// A key has the wrong JSON type (e.g. `"sample_rate": [16000]`).
    case NUI_ERR_INVALID_PARAMETER_TYPE = 240102
    /// A key's value is out of its documented range or not one of its allowed values.
    case NUI_ERR_INVALID_PARAMETER_VALUE = 240103
    /// `sample_rate` 8000 with on-device AEC or VAD enabled, or a rate the protocol or front end does not take.
    case NUI_ERR_UNSUPPORTED_SAMPLE_RATE = 240104
    /// `debug_path` or `workspace` is not a usable directory (cannot be created or written).
    case NUI_ERR_INVALID_PATH = 240105

    // Audio.
    /// `nui_update_audio_data` / `nui_push_reference_data` with a null buffer, a negative length or an odd byte count.
    case NUI_ERR_INVALID_AUDIO_DATA = 240200
    /// The audio queue is full (the pipeline has fallen 2 s behind); the data was refused and counted.
    case NUI_ERR_AUDIO_BUFFER_FULL = 240201
    /// `retCode` of `EVENT_MIC_ERROR`: no audio for 2 consecutive seconds.
    case NUI_ERR_MIC_NO_DATA = 240202
    /// `nui_push_reference_data` or `play_start`/`play_over` while on-device AEC is off.
    case NUI_ERR_AEC_DISABLED = 240203
    /// The on-device front end (AEC, NS, VAD, Opus) could not be set up with these settings.
    case NUI_ERR_FRONT_END = 240204
    /// Two threads pushed mic audio (or reference audio) at the same time; nothing was taken. Push each stream
    /// from one thread at a time.
    case NUI_ERR_CONCURRENT_AUDIO_PUSH = 240205

    // Connection and server: the retCode of EVENT_ASR_ERROR.
    /// Any other connection failure.
    case NUI_ERR_CONNECTION_FAILED = 240300
    /// Nothing listens at the URL's address.
    case NUI_ERR_CONNECTION_REFUSED = 240301
    /// The URL's host name does not resolve.
    case NUI_ERR_UNKNOWN_HOST = 240302
    /// The TLS handshake failed (e.g. the certificate did not verify).
    case NUI_ERR_TLS = 240303
    /// HTTP 401 at the WebSocket upgrade: bad API key.
    case NUI_ERR_UNAUTHORIZED = 240304
    /// HTTP 403 at the WebSocket upgrade: bad token or no permission.
    case NUI_ERR_FORBIDDEN = 240305
    /// Another failed WebSocket upgrade.
    case NUI_ERR_HANDSHAKE_FAILED = 240306
    /// The connection was not set up in time.
    case NUI_ERR_CONNECT_TIMEOUT = 240307
    /// The server did not confirm the task start in time.
    case NUI_ERR_START_TIMEOUT = 240308
    /// The server did not finish the task in time after `nui_dialog_cancel(NO)`.
    case NUI_ERR_FINISH_TIMEOUT = 240309
    /// The server stopped answering, not even pings.
    case NUI_ERR_SERVER_NOT_RESPONDING = 240310
    /// The connection closed while the task ran.
    case NUI_ERR_CONNECTION_CLOSED = 240311
    /// The server reported the task failed (task-failed / TaskFailed); `nui_get_all_response` has its JSON.
    case NUI_ERR_TASK_FAILED = 240312
    /// The server broke the protocol: a message that is not its JSON or is too long (or claims to be), a binary
    /// frame, or the task finished before the client's finish.
    case NUI_ERR_MALFORMED_MESSAGE = 240313

    /// An internal failure (please report it).
    case NUI_ERR_INTERNAL = 240999

    /// The case name, e.g. `NUI_ERR_MISSING_PARAMETER` (also what `"\(code)"` prints).
    public var name: String { String(describing: self) }
}

public let SUCCESS = NuiResultCode.SUCCESS
