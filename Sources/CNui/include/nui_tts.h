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

#include <stdint.h>
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
/** Sends text (continue-task). NUI_ERR_INVALID_PARAMETER_VALUE for NULL text or text that would take the task
 *  beyond the service's 200,000 characters (a CJK character counting 2): refused whole, the task goes on. */
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
/** Barge-in (an addition): when the front end that takes the attached playback's reference (echo_reference
 *  NUI_TTS_REFERENCE_NUI: the ASR SDK's, in every dialog and between them; before the first nui_dialog_start
 *  there is none, so no decision) hears the user talk over the answer, the SDK stops the playback within one sink
 *  buffer, drops the task (no further callback of it; the handle is idle), and reports TTS_PLAYBACK_STOPPED,
 *  TTS_PLAYBACK_INTERRUPTED and tts_interrupted_callback. Off by default; `enabled` false turns it off. Needs the
 *  ASR SDK's AEC and VAD on (enable_aec, enable_vad: the defaults with audio_update_manually). Not from a
 *  real-time thread. Codes: SUCCESS; NUI_ERR_MISSING_PARAMETER (no handle); NUI_ERR_INVALID_PARAMETER_VALUE
 *  when enabling without a playback whose reference is the ASR SDK (set it first: nui_tts_set_playback).
 *  With the ASR SDK's `barge_in_suspicion` parameter on, its front end also reports suspicions (the user may be
 *  talking), on which the answer is ducked 20 dB for 1 s instead of stopped (the decision that stops it then
 *  comes sooner for a quiet talker). */
int nui_tts_enable_barge_in(NuiTtsHandle *handle, bool enabled);
/** Cancels a running task and frees the handle; no callback follows once it returned. Not from a callback. */
void nui_tts_destroy(NuiTtsHandle *handle);
/** The SDK's version text (static). */
const char *nui_tts_get_version(void);

/*
 * Local playback (an addition: the C++ SDK leaves playing to the app). A playback decodes each task's audio
 * (pcm, wav, mp3, opus), resamples it to the device's rate and hands it to the device, and pushes exactly what it
 * hands over (silence between answers included, after volume) as the AEC reference: with
 * echo_reference NUI_TTS_REFERENCE_NUI the app calls neither nui_push_reference_data nor play_start/play_over
 * for the speech. Two shapes: render (the app's audio callback pulls with nui_tts_playback_render) or sink (the
 * SDK's playback thread calls config.sink with each buffer). Attach it to a synthesizer with
 * nui_tts_set_playback; its events reach that synthesizer's tts_playback_event_callback.
 *
 * With NUI_TTS_REFERENCE_NUI, create the playback after nui_set_params (its rate must be nls_config.sample_rate,
 * mono). Before the first nui_dialog_start the ASR SDK has no front end: those reference samples are not taken
 * and are counted (refused_reference_samples); from the first dialog to nui_release every one is taken. The
 * playback then owns the reference stream (every buffer, silence included). The app's own sounds (earcons,
 * music through its own output) still go through nui_push_reference_data (pushed as each buffer is handed to its
 * output) and play_start/play_over: while the playback exists they are mixed into the buffer it pushes (within
 * one playback device buffer; more than 32768 samples ahead: NUI_ERR_AUDIO_BUFFER_FULL and counted), and the
 * front end is "playing" while either sound plays. nui_set_params refuses another sample_rate meanwhile
 * (NUI_ERR_UNSUPPORTED_SAMPLE_RATE). Without a playback, as before.
 */

/** One playback. */
typedef struct NuiTtsPlayback NuiTtsPlayback;

/** Creates a playback (starts its decoding thread and, in the sink shape, its playback thread) into `*playback`.
 *  Returns SUCCESS; NUI_ERR_MISSING_PARAMETER (NULL argument); NUI_ERR_INVALID_PARAMETER_VALUE (a setting out
 *  of range, an unknown enum value); NUI_ERR_UNSUPPORTED_SAMPLE_RATE (a rate not supported, or not the
 *  reference's); NUI_ERR_PARAMS_NOT_SET (NUI reference before nui_set_params). Not real-time safe. */
int nui_tts_playback_create(const NuiTtsPlaybackConfig *config, NuiTtsPlayback **playback);
/** The render shape's entry: fills `buffer` (`count` interleaved samples, any length) with what plays now
 *  (silence when nothing does) and pushes exactly that to the reference. Real-time safe (no allocation, lock,
 *  wait or log): call it from the device's audio callback, one thread. Returns SUCCESS,
 *  NUI_ERR_MISSING_PARAMETER (NULL), NUI_ERR_INVALID_AUDIO_DATA (NULL buffer or negative count) or
 *  NUI_ERR_INVALID_PARAMETER_VALUE (a sink-shaped playback: its own thread renders). */
int nui_tts_playback_render(NuiTtsPlayback *playback, int16_t *buffer, int count);
/** Stops what plays within one device buffer (barge-in); TTS_PLAYBACK_STOPPED follows. Any thread, real-time safe. */
int nui_tts_playback_stop(NuiTtsPlayback *playback);
/** The gain of what is played (and so of the reference), 0...1 (clamped). Any thread, real-time safe. */
int nui_tts_playback_set_volume(NuiTtsPlayback *playback, float volume);
/** The counts so far into `*counts`. Any thread, real-time safe. */
int nui_tts_playback_get_counts(NuiTtsPlayback *playback, NuiTtsPlaybackCounts *counts);
/** Attaches `playback` to the synthesizer (NULL detaches): from its next task on, every task's audio is played
 *  (the data callback still receives it); nui_tts_cancel stops it within a buffer, nui_tts_stop lets it play out.
 *  NUI_ERR_DIALOG_RUNNING while a task runs; NUI_ERR_INVALID_PARAMETER_VALUE when `playback` is attached to
 *  another synthesizer (one playback, one synthesizer). Not real-time safe. */
int nui_tts_set_playback(NuiTtsHandle *handle, NuiTtsPlayback *playback);
/** Detaches the playback from its synthesizer (cancelling that one's running task), stops its threads and frees
 *  it. After it returns the sink is not called again; do not call nui_tts_playback_render with it any more.
 *  nui_tts_destroy detaches the synthesizer's playback too (the playback stays the app's to destroy). Not from a
 *  callback or the sink. */
void nui_tts_playback_destroy(NuiTtsPlayback *playback);

#ifdef __cplusplus
}
#endif

#endif
