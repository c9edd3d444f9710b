/* nui_demo_support.c — WAV reading, checks, callbacks and push threads for nui_demo.c (C99 + POSIX threads). */
#define _POSIX_C_SOURCE 200809L
#include "nui_demo_support.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures = 0;

void check(const char *name, int got, int want) {
    int ok = got == want;
    if (!ok) failures++;
    printf("check %s got=%d want=%d %s\n", name, got, want, ok ? "ok" : "FAIL");
    fflush(stdout);
}

int failed_checks(void) { return failures; }

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

int read_wav(const char *path, struct pcm16 *out) {
    FILE *file = fopen(path, "rb");
    if (!file) { fprintf(stderr, "error: cannot open %s: %s\n", path, strerror(errno)); return -1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = size > 12 ? malloc((size_t)size) : NULL;
    if (!bytes || fread(bytes, 1, (size_t)size, file) != (size_t)size) {
        fprintf(stderr, "error: cannot read %s\n", path);
        fclose(file); free(bytes); return -1;
    }
    fclose(file);
    int channels = 0, bits = 0, format = 0;
    out->samples = NULL;
    if (memcmp(bytes, "RIFF", 4) != 0 || memcmp(bytes + 8, "WAVE", 4) != 0) goto bad;
    for (long at = 12; at + 8 <= size;) {
        uint32_t length = le32(bytes + at + 4);
        const unsigned char *body = bytes + at + 8;
        if ((long)length > size - at - 8) length = (uint32_t)(size - at - 8);
        if (memcmp(bytes + at, "fmt ", 4) == 0 && length >= 16) {
            format = le16(body); channels = le16(body + 2);
            out->sample_rate = (int)le32(body + 4); bits = le16(body + 14);
        } else if (memcmp(bytes + at, "data", 4) == 0) {
            if (format != 1 || channels != 1 || bits != 16) goto bad;
            out->count = length / 2;
            out->samples = malloc(out->count * sizeof(short) + 1);
            if (!out->samples) goto bad;
            for (size_t i = 0; i < out->count; i++) out->samples[i] = (short)le16(body + 2 * i);
            free(bytes);
            return 0;
        }
        at += 8 + (long)length + (length & 1);
    }
bad:
    fprintf(stderr, "error: %s is not a 16-bit PCM mono WAV file\n", path);
    free(bytes);
    return -1;
}

static void on_event(void *user, NuiCallbackEvent event, long dialog, const char *wuw, const char *asr_result,
                     bool finish, int code, const char *all_response) {
    struct demo_state *state = user;
    /* Calling back into the SDK from a callback is allowed: the current event's JSON must match. */
    const char *response = nui_get_all_response();
    int mismatch = !wuw || !asr_result || !all_response || !response || strcmp(response, all_response) != 0;
    printf("event %d dialog=%ld finish=%d code=%d result=%s\n", (int)event, dialog, finish ? 1 : 0, code,
           asr_result ? asr_result : "(null)");
    fflush(stdout);
    /* Releasing the SDK from inside its own callback must not deadlock (the SDK's lock is not held here). */
    int release_code = -1;
    if (event == EVENT_TRANSCRIBER_COMPLETE && state->release_in_callback) release_code = nui_release();
    pthread_mutex_lock(&state->lock);
    state->events[(unsigned)event < 63 ? (unsigned)event : 63]++;
    state->response_mismatches += mismatch;
    if (code != 0) state->last_error_code = code;
    if (release_code != -1) state->release_code = release_code;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->lock);
}

static void on_audio_state(void *user, NuiAudioState audio_state) {
    struct demo_state *state = user;
    pthread_mutex_lock(&state->lock);
    if ((unsigned)audio_state < 3) state->states[audio_state]++;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->lock);
}

static void on_extra(void *user, void *extra, NuiAudioExtraEvent event) {
    struct demo_state *state = user;
    if (event != AudioRmsChanged || !extra) return;
    float db = *(const float *)extra;
    pthread_mutex_lock(&state->lock);
    if (state->rms_calls == 0 || db < state->rms_min) state->rms_min = db;
    if (state->rms_calls == 0 || db > state->rms_max) state->rms_max = db;
    state->rms_calls++;
    pthread_mutex_unlock(&state->lock);
}

static void on_assist(void *user, NuiCallbackEvent event, const char *info, int info_len, const char *buffer,
                      int len) {
    struct demo_state *state = user;
    (void)info; (void)info_len;
    if (event != EVENT_AEC_DATA || !buffer || len <= 0) return;
    pthread_mutex_lock(&state->lock);
    state->aec_bytes += len;
    state->aec_chunks++;
    if (state->aec_file) fwrite(buffer, 1, (size_t)len, state->aec_file);
    pthread_mutex_unlock(&state->lock);
}

static void on_log(void *user, NuiSdkLogLevel level, const char *line) {
    struct demo_state *state = user;
    (void)level; (void)line;
    pthread_mutex_lock(&state->lock);
    state->log_lines++;
    pthread_mutex_unlock(&state->lock);
}

static int on_need_audio(void *user, char *buffer, int len) {
    struct demo_state *state = user;
    pthread_mutex_lock(&state->lock);
    size_t left = state->pull_frames - state->pull_position;
    size_t n = (size_t)len / 2 < left ? (size_t)len / 2 : left;
    memcpy(buffer, state->pull_audio->samples + state->pull_position, n * 2);
    state->pull_position += n;
    state->pull_calls++;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->lock);
    return (int)(n * 2);
}

void demo_pull_from(NuiSdkListener *listener, struct demo_state *state, const struct pcm16 *audio, size_t frames) {
    state->pull_audio = audio;
    state->pull_frames = frames;
    listener->user_data_callback = on_need_audio;
}

/* Waits up to `seconds` (under state->lock, woken by state->changed) until done(state, argument); its last value. */
static int wait_until(struct demo_state *state, int (*done)(const struct demo_state *, int), int argument,
                      int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&state->lock);
    while (!done(state, argument))
        if (pthread_cond_timedwait(&state->changed, &state->lock, &deadline) == ETIMEDOUT) break;
    int result = done(state, argument);
    pthread_mutex_unlock(&state->lock);
    return result;
}

static int all_pulled(const struct demo_state *state, int unused) {
    (void)unused;
    return state->pull_position >= state->pull_frames;
}

static int event_seen(const struct demo_state *state, int event) { return state->events[event] > 0; }

static int audio_state_seen(const struct demo_state *state, int audio_state) { return state->states[audio_state] > 0; }

int demo_wait_pulled(struct demo_state *state, int seconds) { return wait_until(state, all_pulled, 0, seconds); }

int demo_wait_audio_state(struct demo_state *state, NuiAudioState audio_state, int seconds) {
    return wait_until(state, audio_state_seen, (int)audio_state, seconds);
}

int demo_wait_complete(struct demo_state *state, int seconds) {
    return wait_until(state, event_seen, EVENT_TRANSCRIBER_COMPLETE, seconds);
}

void demo_listener(NuiSdkListener *listener, struct demo_state *state) {
    listener->event_callback = on_event;
    listener->audio_state_changed_callback = on_audio_state;
    listener->audio_extra_event_callback = on_extra;
    listener->assist_event_callback = on_assist;
    listener->log_track_callback = on_log;
    listener->user_data = state;
}

void demo_state_init(struct demo_state *state, const char *aec_path) {
    memset(state, 0, sizeof *state);
    pthread_mutex_init(&state->lock, NULL);
    pthread_cond_init(&state->changed, NULL);
    state->aec_file = aec_path ? fopen(aec_path, "wb") : NULL;
    if (aec_path && !state->aec_file) fprintf(stderr, "warning: cannot write %s\n", aec_path);
}

void demo_state_destroy(struct demo_state *state) {
    if (state->aec_file) fclose(state->aec_file);
    pthread_cond_destroy(&state->changed);
    pthread_mutex_destroy(&state->lock);
}

struct pusher {
    const struct pcm16 *audio;
    size_t frames;
    double speed;
    int reference;
    int errors;
    struct timespec start; /* both streams' clock: chunk i of either is due at start + i x 20 ms / speed */
    size_t pushed;         /* chunks pushed so far, SIZE_MAX once all are (__atomic; read by the other thread) */
    struct pusher *other;
};

/* How many chunks (of 20 ms) one stream may run ahead of the other: 500 ms. One clock drives a device's capture
 * and playback, so neither runs seconds ahead of the other; two threads at 20x real time on a loaded machine do
 * when the mic thread, which carries the front end's processing, gets less CPU than that: the reference ran more
 * than the front end's 3.5 s window ahead of the processed mic and was dropped before use (counted; 9.5 M of 9.6 M
 * samples in a 10-minute soak at `nice -n 10` beside 2 busy processes, the echo uncancelled: 11 sentences of 115). */
#define MAX_LEAD_CHUNKS 25

static void *push_thread(void *argument) {
    struct pusher *p = argument;
    size_t chunk = (size_t)p->audio->sample_rate / 50; /* 20 ms */
    struct timespec start = p->start;
    for (size_t at = 0, index = 0; at < p->frames; at += chunk, index++) {
        double due = (double)index * 0.02 / p->speed;
        struct timespec when = start;
        when.tv_sec += (time_t)due;
        when.tv_nsec += (long)((due - (double)(time_t)due) * 1e9);
        if (when.tv_nsec >= 1000000000L) { when.tv_sec++; when.tv_nsec -= 1000000000L; }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL) == EINTR) {}
        struct timespec pause = {0, 1000 * 1000};
        while (index > MAX_LEAD_CHUNKS && __atomic_load_n(&p->other->pushed, __ATOMIC_ACQUIRE) < index - MAX_LEAD_CHUNKS)
            nanosleep(&pause, NULL);
        size_t n = p->frames - at < chunk ? p->frames - at : chunk;
        const char *bytes = (const char *)(p->audio->samples + at);
        int code = p->reference ? nui_push_reference_data(bytes, (int)(n * 2), index == 0)
                                : nui_update_audio_data(bytes, (int)(n * 2), index == 0);
        if (code != SUCCESS) p->errors++;
        __atomic_store_n(&p->pushed, index + 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&p->pushed, SIZE_MAX, __ATOMIC_RELEASE); /* done: never waited for again */
    return NULL;
}

void push_both(const struct pcm16 *mic, const struct pcm16 *reference, size_t frames, double speed,
               struct demo_state *state) {
    /* One clock for both, as a device's capture and playback share one (each thread reading its own start let a
     * thread started late under load push its whole stream behind the other's, by more than the echo's delay). */
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    start.tv_nsec += 20000000L; /* both threads are running by then */
    if (start.tv_nsec >= 1000000000L) { start.tv_sec++; start.tv_nsec -= 1000000000L; }
    struct pusher m = {mic, frames, speed, 0, 0, start, 0, NULL}, r = {reference, frames, speed, 1, 0, start, 0, NULL};
    m.other = &r;
    r.other = &m;
    pthread_t mic_thread, reference_thread;
    pthread_create(&reference_thread, NULL, push_thread, &r);
    pthread_create(&mic_thread, NULL, push_thread, &m);
    pthread_join(mic_thread, NULL);
    pthread_join(reference_thread, NULL);
    pthread_mutex_lock(&state->lock);
    state->mic_push_errors = m.errors;
    state->reference_push_errors = r.errors;
    pthread_mutex_unlock(&state->lock);
}

void demo_print_summary(struct demo_state *state, size_t pushed_mic_bytes) {
    pthread_mutex_lock(&state->lock);
    printf("summary started=%d vad_start=%d vad_end=%d partial=%d sentence_start=%d sentence_end=%d "
           "asr_error=%d mic_error=%d completed=%d state_open=%d state_pause=%d state_close=%d "
           "rms_calls=%d rms_min=%.1f rms_max=%.1f log_lines=%d aec_chunks=%d aec_bytes=%ld mic_bytes=%zu "
           "mic_push_errors=%d reference_push_errors=%d response_mismatches=%d last_error_code=%d pull_calls=%d "
           "pulled_bytes=%zu failed_checks=%d\n",
           state->events[EVENT_TRANSCRIBER_STARTED], state->events[EVENT_VAD_START], state->events[EVENT_VAD_END],
           state->events[EVENT_ASR_PARTIAL_RESULT], state->events[EVENT_SENTENCE_START],
           state->events[EVENT_SENTENCE_END], state->events[EVENT_ASR_ERROR], state->events[EVENT_MIC_ERROR],
           state->events[EVENT_TRANSCRIBER_COMPLETE], state->states[STATE_OPEN], state->states[STATE_PAUSE],
           state->states[STATE_CLOSE], state->rms_calls, state->rms_min, state->rms_max, state->log_lines,
           state->aec_chunks, state->aec_bytes, pushed_mic_bytes, state->mic_push_errors,
           state->reference_push_errors, state->response_mismatches, state->last_error_code, state->pull_calls,
           state->pull_position * 2, failed_checks());
    pthread_mutex_unlock(&state->lock);
    fflush(stdout);
}
