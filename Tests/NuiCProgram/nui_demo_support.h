/* nui_demo_support.h — WAV reading, checks, callbacks and push threads for nui_demo.c. */
#ifndef NUI_DEMO_SUPPORT_H
#define NUI_DEMO_SUPPORT_H

#include "nui.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* 16-bit mono PCM read from a WAV file. */
struct pcm16 {
    short *samples;
    size_t count;
    int sample_rate;
};

/* Reads a 16-bit PCM mono WAV file; 0 on success, -1 (with a message on stderr) otherwise. */
int read_wav(const char *path, struct pcm16 *out);

/* Prints "check NAME got=G want=W ok|FAIL" and counts failures. */
void check(const char *name, int got, int want);
int failed_checks(void);

/* What the callbacks saw, under `lock` (the callbacks run on the SDK's thread, main reads it). */
struct demo_state {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int events[64];          /* count per NuiCallbackEvent value (values >= 63 land in [63]) */
    int states[3];           /* count per NuiAudioState */
    int rms_calls;
    float rms_min, rms_max;
    int log_lines;
    long aec_bytes;
    int aec_chunks;
    int mic_push_errors, reference_push_errors;
    int response_mismatches; /* all_response differed from nui_get_all_response() inside the callback */
    int last_error_code;
    FILE *aec_file;
    /* Pull mode: user_data_callback serves pull_audio from pull_position (in samples) up to pull_frames. */
    const struct pcm16 *pull_audio;
    size_t pull_frames, pull_position;
    int pull_calls;
    /* With release_in_callback, event_callback calls nui_release() on EVENT_TRANSCRIBER_COMPLETE. */
    int release_in_callback;
    int release_code;
};

void demo_state_init(struct demo_state *state, const char *aec_path);
void demo_state_destroy(struct demo_state *state);
/* Sets every callback of `listener` to record into `state`. */
void demo_listener(NuiSdkListener *listener, struct demo_state *state);
/* Pull mode: serve the first `frames` samples of `audio` through user_data_callback. */
void demo_pull_from(NuiSdkListener *listener, struct demo_state *state, const struct pcm16 *audio, size_t frames);
/* Waits up to `seconds` until the SDK pulled everything; 1 when it did. */
int demo_wait_pulled(struct demo_state *state, int seconds);
/* Waits up to `seconds` until audio_state_changed_callback reported `audio_state`; 1 when it did. */
int demo_wait_audio_state(struct demo_state *state, NuiAudioState audio_state, int seconds);
/* Waits up to `seconds` for EVENT_TRANSCRIBER_COMPLETE; 1 when it came. */
int demo_wait_complete(struct demo_state *state, int seconds);
/* Pushes the first `frames` samples of mic and reference from two threads, 20 ms chunks, `speed` x real time. */
void push_both(const struct pcm16 *mic, const struct pcm16 *reference, size_t frames, double speed,
               struct demo_state *state);
/* Prints the `summary key=value ...` line. */
void demo_print_summary(struct demo_state *state, size_t pushed_mic_bytes);

#endif
