/*
 * nui_tts_listener.h — the types of the stream-input TTS C API (nui_tts.h): the event numbers of the SDK
 * (C++ flowingttssdk.h / iOS NeoNuiStreamInputTts.h), the listener (event / data / log callbacks + user data).
 *
 * Threads: every callback runs on the SDK's callback thread (serial: one at a time, in order), never on the
 * thread of the nui_tts_* call that caused it and never while the SDK holds a lock: a callback may call any
 * nui_tts_* function of its handle except nui_tts_destroy (nui_tts_stop from a callback does not block: it acts
 * as nui_tts_async_stop). Pointers passed to a callback are valid only during the call.
 */
#ifndef NUI_TTS_LISTENER_H
#define NUI_TTS_LISTENER_H

#include <stdbool.h>

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

/** The listener: any callback may be NULL (not called). Copied by nui_tts_create. */
typedef struct {
    FuncTtsOnEvent tts_event_callback;
    FuncTtsOnData tts_data_callback;
    FuncTtsOnLog tts_log_track_callback;
    void *user_data;
} StreamInputTtsListener;

#ifdef __cplusplus
}
#endif

#endif
