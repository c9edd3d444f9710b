/*
 * nui_tts_listener.h — the types of the stream-input TTS C API (nui_tts.h): the event numbers of the SDK
 * (C++ flowingttssdk.h / iOS NeoNuiStreamInputTts.h), the listener (event / data / log callbacks + user data,
 * and ours: the playback events), and the settings of local playback (NuiTtsPlaybackConfig, its sink callback).
 *
 * Threads: every callback runs on the SDK's callback thread (serial: one at a time, in order), never on the
 * thread of the nui_tts_* call that caused it and never while the SDK holds a lock: a callback may call any
 * nui_tts_* function of its handle except nui_tts_destroy (nui_tts_stop from a callback does not block: it acts
 * as nui_tts_async_stop). Pointers passed to a callback are valid only during the call.
 */
#ifndef NUI_TTS_LISTENER_H
#define NUI_TTS_LISTENER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The events of the event callback (the SDK's numbers). */
typedef enum {
    TTS_EVENT_SYNTHESIS_STARTED = 0,  /**< task-started: the service takes text */
    TTS_EVENT_SENTENCE_BEGIN = 1,     /**< a sentence began */
    TTS_EVENT_SENTENCE_SYNTHESIS = 2, /**< one audio frame follows in the data callback */
    TTS_EVENT_SENTENCE_END = 3,       /**< a sentence ended (`timestamp`: its words as JSON, if any) */
    TTS_EVENT_SYNTHESIS_COMPLETE = 4, /**< task-finished: all audio delivered (not played) */
    TTS_EVENT_TASK_FAILED = 5         /**< `ret_code` a NuiResultCode, `error_msg` the message */
} NuiTtsEvent;

/** An event (C++ `StreamInputTtsListener::tts_event_callback`). Strings are never NULL. */
typedef void (*FuncTtsOnEvent)(void *user_data, NuiTtsEvent event, const char *taskid, const char *session_id,
                               int ret_code, const char *error_msg, const char *timestamp, const char *all_response);
/** Synthesized audio as the service sent it (pcm, wav, mp3, or one Ogg Opus page per call). */
typedef void (*FuncTtsOnData)(void *user_data, const char *buffer, int len);
/** One SDK log line (`level` a NuiSdkLogLevel value). */
typedef void (*FuncTtsOnLog)(void *user_data, int level, const char *log);

/** The events of the playback event callback when a playback is attached (nui_tts_set_playback); numbered from
 *  100, kept apart from the synthesis events (whose TTS_EVENT_SYNTHESIS_COMPLETE means delivered, not played). */
typedef enum {
    TTS_PLAYBACK_STARTED = 100,       /**< the task's first sample was handed to the device */
    TTS_PLAYBACK_INPUT_ENDED = 101,   /**< every byte the task delivered was decoded (`position_ms`: its length) */
    TTS_PLAYBACK_DRAINED = 102,       /**< the task's last sample was handed to the device */
    TTS_PLAYBACK_STOPPED = 103,       /**< stopped (nui_tts_cancel, nui_tts_playback_stop) at `position_ms` */
    TTS_PLAYBACK_MIC_REARMED = 104,   /**< the room's tail after drained/stopped has passed (rearm_after_ms) */
    TTS_PLAYBACK_DECODE_FAILED = 105, /**< the audio could not be decoded further; what was decoded still plays */
    TTS_PLAYBACK_INTERRUPTED = 106    /**< barge-in (nui_tts_enable_barge_in) stopped the answer at `position_ms`, after its
                                           STOPPED; tts_interrupted_callback follows with what was heard */
} NuiTtsPlaybackEvent;

/** A playback event (an addition: not in the C++ SDK). `session_id` never NULL; `position_ms`: the samples
 *  handed to the device for the task so far, in ms (0 for started, rearmed, decode failed). */
typedef void (*FuncTtsOnPlaybackEvent)(void *user_data, NuiTtsPlaybackEvent event, const char *session_id,
                                       int64_t position_ms);

/** What a barge-in interrupted (tts_interrupted_callback). The times of the decision are on the mic's timeline
 *  (ms from the start of the front end's stream: with the ASR SDK as reference, its engine's, which outlives
 *  dialogs). The counts of what was heard need word timestamps (`word_timestamp_enabled`), else they are -1. */
typedef struct {
    const char *session_id;      /**< the interrupted task's session id, never NULL */
    int64_t position_ms;         /**< the task's samples handed to the device, in ms (as TTS_PLAYBACK_INTERRUPTED) */
    int64_t position_samples;    /**< the same in samples at `sample_rate` */
    int sample_rate;             /**< the playback's rate */
    int words_heard;             /**< words whose audio was handed over in full; -1 without word timestamps */
    int characters_heard;        /**< characters of the text up to the last word heard; -1 without word timestamps */
    const char *text_heard;      /**< that text (UTF-8), never NULL ("" without word timestamps) */
    int64_t speech_start_ms;     /**< the decision: the first frame of the user's speech */
    int64_t decision_ms;         /**< the decision: when it was made */
} NuiTtsInterruption;

/** Barge-in stopped the answer (an addition: not in the C++ SDK). After TTS_PLAYBACK_INTERRUPTED. `interruption`
 *  and its strings are valid during the call only. */
typedef void (*FuncTtsOnInterrupted)(void *user_data, const NuiTtsInterruption *interruption);

/** The listener: any callback may be NULL (not called). Copied by nui_tts_create. The first four fields are the
 *  C++ SDK's; the additions come last (`tts_playback_event_callback`, then `tts_interrupted_callback`), so
 *  `{on_event, on_data, on_log, app}` leaves them NULL (with -Wextra give all fields, or start from `= {0}` and
 *  assign the fields). Adding a field changes the struct's size: rebuild against this header. */
typedef struct {
    FuncTtsOnEvent tts_event_callback;
    FuncTtsOnData tts_data_callback;
    FuncTtsOnLog tts_log_track_callback;
    void *user_data;
    FuncTtsOnPlaybackEvent tts_playback_event_callback;
    FuncTtsOnInterrupted tts_interrupted_callback;
} StreamInputTtsListener;

/** The sink shape's output: the SDK's playback thread calls it with each device buffer (`samples`: `count`
 *  interleaved 16-bit samples, `sink_buffer_ms` long), in order, after the same buffer was pushed as the echo
 *  reference. It may block until the device took the buffer (NUI_TTS_PACING_SINK); the pointer is valid during
 *  the call only. */
typedef void (*FuncTtsPlaybackSink)(void *sink_user_data, const int16_t *samples, int count);

/** Where what is played goes as the AEC reference. */
typedef enum {
    NUI_TTS_REFERENCE_NONE = 0, /**< nowhere (the app pushes reference itself, or runs no AEC) */
    NUI_TTS_REFERENCE_NUI = 1   /**< the ASR SDK of nui.h, as if pushed with nui_push_reference_data */
} NuiTtsEchoReference;

/** How the sink thread is paced. */
typedef enum {
    NUI_TTS_PACING_SINK = 0, /**< the sink callback blocks until the device took the buffer (ALSA, PulseAudio) */
    NUI_TTS_PACING_CLOCK = 1 /**< the thread sleeps until each buffer's time (the sink returns at once) */
} NuiTtsSinkPacing;

/** The settings of nui_tts_playback_create. Zero fields take the default, so `NuiTtsPlaybackConfig c = {0};`
 *  is a 16 kHz mono render-shaped playback without reference. */
typedef struct {
    int sample_rate;                    /**< the device's rate, 8000...48000 (0: 16000); speech is resampled to it */
    int channel_count;                  /**< 1 or 2 (0: 1); the mono speech in each channel */
    int buffer_ms;                      /**< decoded audio held ahead of the device, 1000...60000 (0: 3000) */
    int rearm_after_ms;                 /**< TTS_PLAYBACK_MIC_REARMED this long after the end, 1...5000 (0: 600) */
    NuiTtsEchoReference echo_reference; /**< where the played samples go as the AEC reference (0: none) */
    FuncTtsPlaybackSink sink;           /**< the sink shape's output; NULL: the render shape (nui_tts_playback_render) */
    void *sink_user_data;               /**< passed to `sink` */
    NuiTtsSinkPacing sink_pacing;       /**< the sink thread's pacing (0: by the sink) */
    int sink_buffer_ms;                 /**< one sink buffer, 2...100 ms (0: 10); stop acts within one */
} NuiTtsPlaybackConfig;

/** What a playback counted so far (nui_tts_playback_get_counts). */
typedef struct {
    int64_t rendered_frames;            /**< frames handed to the device (silence included) */
    int64_t underrun_frames;            /**< frames of an answer filled with silence because decoding lagged */
    int64_t reference_samples_pushed;   /**< samples the reference took */
    int64_t refused_reference_samples;  /**< samples the reference did not take (e.g. before the first dialog) */
    int64_t refused_input_bytes;        /**< synthesized bytes the input buffer refused */
    int64_t played_position_ms;         /**< the current (or last) task's samples handed to the device, ms */
} NuiTtsPlaybackCounts;

#ifdef __cplusplus
}
#endif

#endif
