/*
 * nui_listener.h — the callbacks of the NUI C API: one struct of function pointers and a user-data pointer.
 *
 * Names follow the NUI C++ SDK (`NuiSdkListener`, `event_callback`, `user_data_callback`, ...); the iOS
 * delegate method each stands for is named beside it.
 *
 * Threads: the callbacks run on the SDK's callback thread (a serial queue: one callback at a time, in the
 * order the SDK posted them), never on the thread of the nui_* call that caused them and never while the SDK
 * holds an internal lock, so a callback may call any nui_* function (nui_get_all_response, nui_dialog_cancel,
 * even nui_release) without deadlock. Exception: in pull mode `user_data_callback` runs on the SDK's audio
 * thread. The last callback is `audio_state_changed_callback(STATE_CLOSE)`; nui_release returns after it
 * (unless nui_release is called from inside a callback: then STATE_CLOSE follows once that callback returns),
 * so `user_data` may be freed once nui_release has returned. Pointers passed to a callback are valid only
 * during that call: copy what you keep.
 */
#ifndef NUI_LISTENER_H
#define NUI_LISTENER_H

#include <stdbool.h>
#include "nui_code.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An event (iOS `onNuiEventCallback`). `asr_result` is the event's text (never NULL): the server's JSON for
 *  results, start and completion, the error message for errors, the SDK's JSON for VAD events; `wuw` is always
 *  ""; `dialog` numbers the dialogs from 1; `finish` is true when the dialog ended (EVENT_TRANSCRIBER_COMPLETE,
 *  EVENT_ASR_ERROR); `code` is the result code for EVENT_ASR_ERROR / EVENT_MIC_ERROR, else 0;
 *  `all_response` is the complete event JSON (what nui_get_all_response returns during this call). */
typedef void (*FuncDialogListenerOnEvent)(void *user_data, NuiCallbackEvent event, long dialog, const char *wuw,
                                          const char *asr_result, bool finish, int code, const char *all_response);

/** Pull mode (`audio_update_manually` is "false"; iOS `onNuiNeedAudioData`): fill `buffer` with up to `len`
 *  bytes of 16-bit little-endian mono PCM at the configured sample rate and return how many bytes were
 *  written (0 when none is ready; a negative value is counted as 0). Called repeatedly while a dialog runs,
 *  on the SDK's audio thread: do not block in it for long. */
typedef int (*FuncDialogUserProvideData)(void *user_data, char *buffer, int len);

/** The recorder should open, pause or close (iOS `onNuiAudioStateChanged`). */
typedef void (*FuncDialogAudioStateChange)(void *user_data, NuiAudioState state);

/** An extra audio event (iOS `onNuiRmsChanged`): for AudioRmsChanged, `extra_data` points to one `float`,
 *  the mic level in dB (-160 ... 0). */
typedef void (*FuncDialogAudioExtraEvent)(void *user_data, void *extra_data, NuiAudioExtraEvent event);

/** Auxiliary data (iOS `onNuiAssistEventCallback`): for EVENT_AEC_DATA, `buffer` holds `len` bytes of the
 *  echo-cancelled mic audio (16-bit little-endian mono PCM at the configured sample rate), one call per
 *  processed chunk, in order. `info` is a JSON string (may be ""), `info_len` its length. */
typedef void (*FuncDialogAssistEvent)(void *user_data, NuiCallbackEvent event, const char *info, int info_len,
                                      const char *buffer, int len);

/** A log line (iOS `onNuiLogTrackCallback`), filtered by `log_track_level` and the level of nui_initialize.
 *  Lines never contain the API key. */
typedef void (*FuncLogTrackOnMessage)(void *user_data, NuiSdkLogLevel level, const char *log);

/** The callbacks given to nui_initialize. Zero-initialize it (`NuiSdkListener l = {0};` in C,
 *  `NuiSdkListener l{};` in C++) and set the ones you need; a NULL member is simply not called.
 *  nui_initialize copies the struct; `user_data` is passed back unchanged as the first argument. */
typedef struct NuiSdkListener {
    FuncDialogListenerOnEvent event_callback;
    FuncDialogUserProvideData user_data_callback;
    FuncDialogAudioStateChange audio_state_changed_callback;
    FuncDialogAudioExtraEvent audio_extra_event_callback;
    FuncDialogAssistEvent assist_event_callback;
    FuncLogTrackOnMessage log_track_callback;
    void *user_data;
} NuiSdkListener;

#ifdef __cplusplus
}
#endif

#endif /* NUI_LISTENER_H */
