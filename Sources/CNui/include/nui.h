/*
 * nui.h — the C API of AudioFrontEnd's NUI-compatible SDK (library `libnui.so`, SwiftPM product `nui`).
 *
 * The same calls as Alibaba's NUI SDK (iOS `NeoNui`, C++ `NuiSdk`) as plain C functions over one SDK
 * instance (the SDK is a singleton). Typical use, push mode with on-device AEC:
 *
 *     NuiSdkListener l = {0}; l.event_callback = on_event; l.assist_event_callback = on_aec; l.user_data = app;
 *     nui_initialize("{\"url\":\"wss://...\",\"apikey\":\"...\",\"device_id\":\"d1\",\"service_mode\":\"1\","
 *                    "\"audio_update_manually\":\"true\",\"workspace\":\"/data/nui\"}", &l, LOG_LEVEL_INFO, false);
 *     nui_set_params("{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\","
 *                    "\"sr_format\":\"pcm\",\"sample_rate\":16000}}");
 *     nui_dialog_start(MODE_P2T, "");
 *     // recorder thread:  nui_update_audio_data(mic, bytes, false);
 *     // player thread:    nui_push_reference_data(played, bytes, false);
 *     nui_dialog_cancel(false);   // then wait for EVENT_TRANSCRIBER_COMPLETE
 *     nui_release();
 *
 * Every function returns a result code (nui_code.h); none aborts or crashes on bad input: a NULL pointer where
 * one is required gives NUI_ERR_INVALID_JSON (parameter text), NUI_ERR_INVALID_AUDIO_DATA (audio) or
 * NUI_ERR_MISSING_PARAMETER (listener); an unknown enum value NUI_ERR_INVALID_PARAMETER_VALUE (log level) or
 * NUI_ERR_UNSUPPORTED_VAD_MODE; a call in the wrong state NUI_ERR_NOT_INITIALIZED, NUI_ERR_ALREADY_INITIALIZED,
 * NUI_ERR_PARAMS_NOT_SET, NUI_ERR_DIALOG_RUNNING or NUI_ERR_NO_DIALOG. All functions may be
 * called from any thread and from inside a callback (see nui_listener.h for the callbacks' thread).
 * The parameters (JSON) are documented in the repository's README ("Using the C API") and in the Swift
 * module NuiSDK; they are the NUI SDK's.
 */
#ifndef NUI_H
#define NUI_H

#include <stdbool.h>
#include "nui_code.h"
#include "nui_listener.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initializes the SDK. `parameters`: connection and control JSON (url, apikey, device_id, service_mode,
 *  audio_update_manually, debug_path, save_wav, ...); `listener`: the callbacks (copied); `level`: the
 *  SDK's log level; `save_log`: write log files to debug_path. Not real-time safe (allocates). */
NuiResultCode nui_initialize(const char *parameters, const NuiSdkListener *listener, NuiSdkLogLevel level,
                             bool save_log);

/** Sets the recognition parameters (JSON: service_type, nls_config, on-device front-end settings).
 *  After nui_initialize, before nui_dialog_start. Not real-time safe. */
NuiResultCode nui_set_params(const char *params);

/** Starts a dialog (recognition task). `vad_mode`: MODE_P2T; `dialog_params`: JSON (may be "" or NULL)
 *  with an updated apikey or an input_context. Not real-time safe. */
NuiResultCode nui_dialog_start(NuiVadMode vad_mode, const char *dialog_params);

/** A runtime action while a dialog runs: JSON {"type":"action","command":"context"|"play_start"|"play_over",
 *  ...}. play_start/play_over tell the on-device AEC that playback started/ended. Not real-time safe. */
NuiResultCode nui_dialog_action(const char *action_params);

/** Pushes `len` bytes of mic audio (16-bit little-endian mono PCM at nls_config.sample_rate) in push mode
 *  (audio_update_manually "true"), in chunks of any even size. Real-time safe: never allocates, locks, blocks or
 *  logs. The complete 10 ms frames are processed (AEC, noise suppression, VAD, encoding) on the calling thread
 *  before it returns, so a call costs about the processing of the frames it completes; the results travel to
 *  the network and callback threads through rings. If those fall 2 s behind, the rest of the chunk is dropped,
 *  counted, and NUI_ERR_AUDIO_BUFFER_FULL returned. One call takes at most 1 s of audio (NUI_MAX_PUSH_MS:
 *  2 x sample_rate bytes, 32000 at 16 kHz), so a call never holds its thread for the processing of more: of a
 *  longer chunk the first second is processed, the rest dropped and counted, NUI_ERR_AUDIO_BUFFER_FULL returned. Call from one thread at a time (the recorder's): a
 *  concurrent push is refused with NUI_ERR_CONCURRENT_AUDIO_PUSH. `first_pack` is ignored, as in the NUI SDK. */
int nui_update_audio_data(const char *data, int len, bool first_pack);

/** Pushes `len` bytes of the audio the device played (16-bit little-endian mono PCM at nls_config.sample_rate),
 *  the AEC reference, as it is played. Real-time safe like nui_update_audio_data (it only stores the reference;
 *  when the history window is full the oldest reference is dropped and counted). At most 1 s per call, as for
 *  nui_update_audio_data: beyond it the rest is dropped, counted, and NUI_ERR_AUDIO_BUFFER_FULL returned.
 *  Call from one thread at a time (the player's). NUI_ERR_AEC_DISABLED when on-device AEC is off. */
int nui_push_reference_data(const char *data, int len, bool first_pack);

/** Ends the dialog. `force` false: wait for the final result, then EVENT_TRANSCRIBER_COMPLETE; true: end
 *  now and discard what is pending (EVENT_TRANSCRIBER_COMPLETE at once). Not real-time safe. */
NuiResultCode nui_dialog_cancel(bool force);

/** Releases the SDK: ends any dialog at once (EVENT_TRANSCRIBER_COMPLETE), then STATE_CLOSE; returns once
 *  STATE_CLOSE was delivered (see nui_listener.h). nui_initialize may be called again after it. */
NuiResultCode nui_release(void);

/** The SDK version after nui_initialize ("" before, as in the NUI SDK); a static string, never NULL. */
const char *nui_get_version(void);

/** The complete JSON of the current event: meant for inside `event_callback` (where it equals `all_response`);
 *  "" before the first event; never NULL. The string stays valid until eight more events have been delivered. */
const char *nui_get_all_response(void);

#ifdef __cplusplus
}
#endif

#endif /* NUI_H */
