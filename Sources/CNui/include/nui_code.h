/*
 * nui_code.h — the NUI SDK's enumerations and result codes, for C and C++.
 *
 * Part of the C ABI of AudioFrontEnd's NUI-compatible SDK (library `libnui`, header `nui.h`).
 * The names of the enumerations and of their values are those of Alibaba's NUI SDK (iOS `NeoNui`, C++ `nuisdk.h`),
 * so an app written against that SDK compiles without renaming; the numbers, and the result codes, are those of
 * the Swift module `NuiSDK` (raw values of its `NuiCallbackEvent`, `NuiResultCode`, ...; the table is
 * Sources/NuiSDK/ResultCodes.md). They are published and never change; `NuiCTests` checks every value here
 * against the Swift enums.
 */
#ifndef NUI_CODE_H
#define NUI_CODE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Log levels: the SDK's own log level (`nui_initialize`), `log_track_level`, and the level of a line passed to
 *  `log_track_callback`. A line is delivered when its level is >= both. Both spellings of the NUI SDK work. */
typedef enum NuiSdkLogLevel {
    LOG_LEVEL_VERBOSE = 0,
    LOG_LEVEL_DEBUG = 1,
    LOG_LEVEL_INFO = 2,
    LOG_LEVEL_WARNING = 3,
    LOG_LEVEL_ERROR = 4,
    LOG_LEVEL_NONE = 5, /**< nothing is logged */
    NUI_LOG_LEVEL_VERBOSE = LOG_LEVEL_VERBOSE,
    NUI_LOG_LEVEL_DEBUG = LOG_LEVEL_DEBUG,
    NUI_LOG_LEVEL_INFO = LOG_LEVEL_INFO,
    NUI_LOG_LEVEL_WARNING = LOG_LEVEL_WARNING,
    NUI_LOG_LEVEL_ERROR = LOG_LEVEL_ERROR,
    NUI_LOG_LEVEL_NONE = LOG_LEVEL_NONE
} NuiSdkLogLevel;

/** What the app should do with its recorder (`audio_state_changed_callback`). */
typedef enum NuiAudioState {
    STATE_OPEN = 0,  /**< a dialog started (nui_dialog_start): open the recorder and start recording */
    STATE_PAUSE = 1, /**< the dialog stopped (nui_dialog_cancel, or the task ended): stop recording */
    STATE_CLOSE = 2  /**< the SDK was released (nui_release): close the recorder */
} NuiAudioState;

/** Extra audio events (`audio_extra_event_callback`). */
typedef enum NuiAudioExtraEvent {
    AudioRmsChanged = 0 /**< `extra_data` points to one `float`: the mic level in dB full scale, -160 ... 0 */
} NuiAudioExtraEvent;

/** The VAD mode of `nui_dialog_start`. Real-time recognition uses `MODE_P2T` (push to talk: the dialog runs until
 *  nui_dialog_cancel); the other modes return NUI_ERR_UNSUPPORTED_VAD_MODE. */
typedef enum NuiVadMode {
    MODE_VAD = 0,
    MODE_KWS = 1,
    MODE_P2T = 2
} NuiVadMode;

/** Events of `event_callback` and `assist_event_callback`. The gaps in the numbering are events of the NUI SDK
 *  that this SDK never sends. */
typedef enum NuiCallbackEvent {
    EVENT_VAD_START = 0,             /**< the on-device VAD found the start of speech */
    EVENT_VAD_TIMEOUT = 1,           /**< not sent by real-time recognition */
    EVENT_VAD_END = 2,               /**< the on-device VAD found the end of speech */
    EVENT_ASR_PARTIAL_RESULT = 8,    /**< an intermediate result; `asr_result` is the server's JSON */
    EVENT_ASR_RESULT = 9,            /**< not sent (finals come as EVENT_SENTENCE_END) */
    EVENT_ASR_ERROR = 10,            /**< recognition failed; `code` holds the result code */
    EVENT_MIC_ERROR = 15,            /**< no audio for 2 consecutive seconds; `code` is NUI_ERR_MIC_NO_DATA */
    EVENT_MIC_EEROR = EVENT_MIC_ERROR, /**< the Tingwu document's spelling */
    EVENT_SENTENCE_START = 17,       /**< a sentence began */
    EVENT_SENTENCE_END = 18,         /**< a sentence ended; `asr_result` holds its complete result */
    EVENT_SENTENCE_SEMANTICS = 19,   /**< not sent */
    EVENT_TRANSCRIBER_COMPLETE = 20, /**< recognition finished after nui_dialog_cancel; `finish` is true */
    EVENT_RESULT_TRANSLATED = 21,    /**< a translation result (Tingwu) */
    EVENT_TRANSCRIBER_STARTED = 26,  /**< the task started: the server accepted it and audio flows */
    EVENT_AEC_DATA = 40              /**< `assist_event_callback`: `buffer` holds echo-cancelled 16-bit PCM */
} NuiCallbackEvent;

/** Result codes: every call returns one; EVENT_ASR_ERROR and EVENT_MIC_ERROR carry one in `code`.
 *  SUCCESS is 0; errors are 240000 and up, grouped by hundreds: calls and state (2400xx), parameters (2401xx,
 *  the log names the key), audio (2402xx), connection and server (2403xx). */
typedef int NuiResultCode;

/** The most audio one nui_update_audio_data or nui_push_reference_data call takes, in milliseconds (1 s:
 *  2 x sample_rate bytes); of a longer chunk the rest is dropped, counted, and NUI_ERR_AUDIO_BUFFER_FULL returned. */
#define NUI_MAX_PUSH_MS 1000

enum {
    SUCCESS = 0,

    /* Calls and state. */
    NUI_ERR_ALREADY_INITIALIZED = 240001,   /**< nui_initialize while initialized (call nui_release first) */
    NUI_ERR_NOT_INITIALIZED = 240002,       /**< a call before nui_initialize or after nui_release */
    NUI_ERR_DIALOG_RUNNING = 240003,        /**< nui_set_params or nui_dialog_start while a dialog runs */
    NUI_ERR_NO_DIALOG = 240004,             /**< dialog_action, audio push or dialog_cancel with no dialog */
    NUI_ERR_PARAMS_NOT_SET = 240005,        /**< nui_dialog_start before a successful nui_set_params */
    NUI_ERR_MANUAL_AUDIO_DISABLED = 240006, /**< audio pushed while audio_update_manually is false (pull mode) */
    NUI_ERR_UNSUPPORTED_VAD_MODE = 240007,  /**< nui_dialog_start with a vad_mode other than MODE_P2T */

    /* Parameters. */
    NUI_ERR_INVALID_JSON = 240100,            /**< the parameter text is NULL, not JSON, or not a JSON object */
    NUI_ERR_MISSING_PARAMETER = 240101,       /**< a required key (or nui_initialize's listener) is missing */
    NUI_ERR_INVALID_PARAMETER_TYPE = 240102,  /**< a key has the wrong JSON type */
    NUI_ERR_INVALID_PARAMETER_VALUE = 240103, /**< a value is out of range, or an unknown enum value */
    NUI_ERR_UNSUPPORTED_SAMPLE_RATE = 240104, /**< 8000 Hz with AEC or VAD, or a rate that is not supported */
    NUI_ERR_INVALID_PATH = 240105,            /**< debug_path or workspace is not a usable directory */

    /* Audio. */
    NUI_ERR_INVALID_AUDIO_DATA = 240200, /**< NULL buffer, negative length or odd byte count */
    NUI_ERR_AUDIO_BUFFER_FULL = 240201,  /**< the audio queue is full (2 s behind), or a push held more than
                                             NUI_MAX_PUSH_MS of audio; the rest was refused, counted */
    NUI_ERR_MIC_NO_DATA = 240202,        /**< `code` of EVENT_MIC_ERROR */
    NUI_ERR_AEC_DISABLED = 240203,       /**< reference pushed or play_start/play_over while on-device AEC is off */
    NUI_ERR_FRONT_END = 240204,          /**< the on-device front end could not be set up with these settings */
    NUI_ERR_CONCURRENT_AUDIO_PUSH = 240205, /**< two threads pushed mic (or reference) audio at once */

    /* Connection and server: the `code` of EVENT_ASR_ERROR. */
    NUI_ERR_CONNECTION_FAILED = 240300,
    NUI_ERR_CONNECTION_REFUSED = 240301,
    NUI_ERR_UNKNOWN_HOST = 240302,
    NUI_ERR_TLS = 240303,
    NUI_ERR_UNAUTHORIZED = 240304,          /**< HTTP 401 at the upgrade: bad API key */
    NUI_ERR_FORBIDDEN = 240305,             /**< HTTP 403 at the upgrade: bad token */
    NUI_ERR_HANDSHAKE_FAILED = 240306,
    NUI_ERR_CONNECT_TIMEOUT = 240307,
    NUI_ERR_START_TIMEOUT = 240308,
    NUI_ERR_FINISH_TIMEOUT = 240309,
    NUI_ERR_SERVER_NOT_RESPONDING = 240310,
    NUI_ERR_CONNECTION_CLOSED = 240311,
    NUI_ERR_TASK_FAILED = 240312,           /**< the server reported task-failed; nui_get_all_response has it */
    NUI_ERR_MALFORMED_MESSAGE = 240313,

    NUI_ERR_INTERNAL = 240999               /**< an internal failure (please report it) */
};

#ifdef __cplusplus
}
#endif

#endif /* NUI_CODE_H */
