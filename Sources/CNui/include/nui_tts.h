/*
 * nui_tts.h — the C ABI of the stream-input TTS SDK (NeoNuiStreamInputTts), exported by libnui.so beside the
 * ASR C API (nui.h). In the shape of the C++ SDK's StreamInputTtsSdk: start / play / send / stop / async_stop /
 * cancel, and a listener with event / data / log callbacks. Unlike the ASR API, which has one global instance,
 * each synthesizer is a handle (nui_tts_create), so an app may run several.
 *
 * Results are NuiResultCode values (nui_code.h; 0 = SUCCESS): a NULL handle or listener is
 * NUI_ERR_MISSING_PARAMETER (240101); calls in the wrong state NUI_ERR_DIALOG_RUNNING / NUI_ERR_NO_DIALOG; bad
 * ticket or parameter values 240100–240105 with a log line naming the key. Not real-time safe (allocates, locks).
 * The ticket's apikey never reaches a log line, file or callback. Every function may be called from any thread.
 */
#ifndef NUI_TTS_H
#define NUI_TTS_H

#include "nui_code.h"
#include "nui_tts_listener.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One synthesizer. */
typedef struct NuiTtsHandle NuiTtsHandle;

/** Creates a synthesizer whose callbacks go to `listener` (copied). NULL when `listener` is NULL. */
NuiTtsHandle *nui_tts_create(const StreamInputTtsListener *listener);

/** Starts a task (ticket: url, apikey, device_id, complete_waiting_ms, debug_path, max_log_file_size,
 *  log_track_level; parameters: model, voice, format, sample_rate, volume, rate, pitch, ...); returns at once.
 *  `session_id` may be NULL (the SDK makes one); `log_level` a NuiSdkLogLevel value. */
int nui_tts_start(NuiTtsHandle *handle, const char *ticket, const char *parameters, const char *session_id,
                  int log_level, bool save_log);
/** Sends text (continue-task). */
int nui_tts_send(NuiTtsHandle *handle, const char *text);
/** Ends the text and blocks until TTS_EVENT_SYNTHESIS_COMPLETE (at most the ticket's complete_waiting_ms). */
int nui_tts_stop(NuiTtsHandle *handle);
/** Ends the text and returns at once. */
int nui_tts_async_stop(NuiTtsHandle *handle);
/** Drops the task at once: no further callback of it. */
int nui_tts_cancel(NuiTtsHandle *handle);
/** One-shot synthesis of `text` (start + text + finish, SSML on unless parameters set enable_ssml false);
 *  returns at once. nui_tts_async_play is the same call under the iOS SDK's other name. */
int nui_tts_play(NuiTtsHandle *handle, const char *ticket, const char *parameters, const char *text,
                 const char *session_id, int log_level, bool save_log);
int nui_tts_async_play(NuiTtsHandle *handle, const char *ticket, const char *parameters, const char *text,
                       const char *session_id, int log_level, bool save_log);
/** Cancels a running task and frees the handle; no callback follows once it returned. Not from a callback. */
void nui_tts_destroy(NuiTtsHandle *handle);
/** The SDK's version text (static). */
const char *nui_tts_get_version(void);

#ifdef __cplusplus
}
#endif

#endif
