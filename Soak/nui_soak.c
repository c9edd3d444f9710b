/*
 * nui_soak.c — long runs of libnui.so from C, as a device app uses it (nui.h).
 *
 *   nui_soak URL MIC.wav REFERENCE.wav long    SECONDS SPEED [pcm|opus]
 *   nui_soak URL MIC.wav REFERENCE.wav dialogs COUNT   SECONDS SPEED [pcm|opus]
 *
 * long: one dialog of SECONDS of audio (the files repeated), pushed from two threads at SPEED x real time; a
 * sampler thread reads the resident memory every 100 ms. dialogs: COUNT dialogs of SECONDS each on one
 * initialized SDK; resident memory, threads and open files after each. Prints one `soak key=value ...` line.
 * Exit status 0 when every check passed: the dialog(s) completed, every pushed byte came back as EVENT_AEC_DATA,
 * results arrived, no push failed, and memory (and, for dialogs, threads and files) stayed flat. 1 otherwise,
 * 2 on bad usage. Built and run by Soak/run.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "nui.h"
#include "nui_demo_support.h"
#include "soak_proc.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_BYTES (2L * 1024 * 1024)

/* The files repeated to `frames` samples. */
static struct pcm16 repeated(const struct pcm16 *audio, size_t frames) {
    struct pcm16 out = {malloc(frames * sizeof(short)), frames, audio->sample_rate};
    for (size_t i = 0; i < frames && out.samples; i++) out.samples[i] = audio->samples[i % audio->count];
    return out;
}

struct sampler {
    struct demo_state *state;
    long minute_bytes; /* EVENT_AEC_DATA bytes in one minute of audio */
    volatile int stop;
    long baseline, peak;
};

static void *sample(void *argument) {
    struct sampler *s = argument;
    while (!s->stop) {
        pthread_mutex_lock(&s->state->lock);
        long aec = s->state->aec_bytes;
        pthread_mutex_unlock(&s->state->lock);
        long rss = resident_bytes();
        if (aec >= s->minute_bytes) {
            if (s->baseline == 0) s->baseline = rss;
            if (rss > s->peak) s->peak = rss;
        }
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static int failures = 0;
static void expect(int ok, const char *what) {
    if (!ok) {
        failures++;
        printf("FAIL %s\n", what);
    }
}

/* One dialog; returns its pushed mic bytes. */
static size_t dialog(struct demo_state *state, const struct pcm16 *mic, const struct pcm16 *reference, double speed) {
    pthread_mutex_lock(&state->lock);
    memset(state->events, 0, sizeof state->events);
    state->aec_bytes = 0;
    state->aec_chunks = 0;
    pthread_mutex_unlock(&state->lock);
    int started = nui_dialog_start(MODE_P2T, NULL) == SUCCESS; /* NULL: no dialog parameters (nui.h) */
    expect(started, "nui_dialog_start");
    if (!started) return 0;
    expect(nui_dialog_action("{\"type\":\"action\",\"command\":\"play_start\"}") == SUCCESS, "play_start");
    push_both(mic, reference, mic->count, speed, state);
    expect(nui_dialog_action("{\"type\":\"action\",\"command\":\"play_over\"}") == SUCCESS, "play_over");
    expect(nui_dialog_cancel(false) == SUCCESS, "nui_dialog_cancel");
    expect(demo_wait_complete(state, 120), "EVENT_TRANSCRIBER_COMPLETE within 120 s");
    pthread_mutex_lock(&state->lock);
    /* The front end outlives the dialog: when the mic stops at nui_dialog_cancel, the stages' hold-back (20 ms)
       never comes out, so up to 30 ms (960 bytes) may be missing, never more, never extra. */
    long pushed = (long)(mic->count * 2);
    expect(state->aec_bytes <= pushed && state->aec_bytes >= pushed - 960,
           "every pushed byte came back as EVENT_AEC_DATA (but the stages' hold-back)");
    expect(state->events[EVENT_SENTENCE_END] > 0, "a final result");
    expect(state->events[EVENT_ASR_ERROR] == 0, "no EVENT_ASR_ERROR");
    expect(state->mic_push_errors == 0 && state->reference_push_errors == 0, "every push returned SUCCESS");
    pthread_mutex_unlock(&state->lock);
    return mic->count * 2;
}

int main(int argc, char **argv) {
    int dialogs_mode = argc >= 5 && strcmp(argv[4], "dialogs") == 0;
    if (argc < (dialogs_mode ? 8 : 7)) {
        fprintf(stderr, "usage: %s URL MIC.wav REF.wav long SECONDS SPEED [pcm|opus] | dialogs COUNT SECONDS SPEED [pcm|opus]\n",
                argv[0]);
        return 2;
    }
    struct pcm16 mic_file, reference_file;
    if (read_wav(argv[2], &mic_file) != 0 || read_wav(argv[3], &reference_file) != 0) return 2;
    int count = dialogs_mode ? atoi(argv[5]) : 1;
    double seconds = atof(argv[dialogs_mode ? 6 : 5]), speed = atof(argv[dialogs_mode ? 7 : 6]);
    const char *format = argc > (dialogs_mode ? 8 : 7) ? argv[dialogs_mode ? 8 : 7] : "pcm";
    if (count < 1 || seconds <= 0 || speed <= 0) return 2;
    size_t frames = (size_t)(seconds * mic_file.sample_rate);
    struct pcm16 mic = repeated(&mic_file, frames), reference = repeated(&reference_file, frames);

    struct demo_state state;
    demo_state_init(&state, NULL);
    NuiSdkListener listener;
    memset(&listener, 0, sizeof listener);
    demo_listener(&listener, &state);
    char init_params[1024], params[512];
    snprintf(init_params, sizeof init_params,
             "{\"url\":\"%s\",\"apikey\":\"soak-key\",\"token\":\"soak-token\",\"app_key\":\"soak-appkey\","
             "\"device_id\":\"nui-soak-c\",\"service_mode\":\"1\",\"audio_update_manually\":\"true\",\"workspace\":\"/tmp\"}",
             argv[1]);
    snprintf(params, sizeof params,
             "{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\",\"sr_format\":\"%s\",\"sample_rate\":%d}}",
             format, mic.sample_rate);
    expect(nui_initialize(init_params, &listener, LOG_LEVEL_NONE, false) == SUCCESS, "nui_initialize");
    expect(nui_set_params(params) == SUCCESS, "nui_set_params");

    if (!dialogs_mode) {
        struct sampler s = {&state, 60L * mic.sample_rate * 2 * 16000 / mic.sample_rate, 0, 0, 0};
        pthread_t thread;
        pthread_create(&thread, NULL, sample, &s);
        size_t bytes = dialog(&state, &mic, &reference, speed);
        s.stop = 1;
        pthread_join(thread, NULL);
        long growth = s.baseline ? s.peak - s.baseline : 0;
        expect(seconds < 90 || growth <= LIMIT_BYTES, "RSS growth after the first minute <= 2 MiB");
        printf("soak surface=c mode=long seconds=%.0f format=%s mic_bytes=%zu aec_bytes=%ld sentences=%d partials=%d "
               "rss_baseline=%ld rss_peak=%ld rss_growth=%ld failures=%d\n", seconds, format, bytes, state.aec_bytes,
               state.events[EVENT_SENTENCE_END], state.events[EVENT_ASR_PARTIAL_RESULT], s.baseline, s.peak, growth,
               failures);
    } else {
        struct run_figures f = {0};
        for (int i = 0; i < count; i++) {
            dialog(&state, &mic, &reference, speed);
            run_figures_sample(&f, i, count);
        }
        /* Both samples settled; threads are ours only (libdispatch's workers come and go with load). */
        expect(f.last - f.baseline <= LIMIT_BYTES, "RSS growth from dialog 10 to the end <= 2 MiB");
        expect(f.threads <= f.threads_base, "threads flat");
        expect(f.files <= f.files_base, "open files flat");
        printf("soak surface=c mode=dialogs dialogs=%d format=%s rss_baseline=%ld rss_peak=%ld rss_growth=%ld "
               "threads=%d->%d fds=%d->%d failures=%d\n", count, format, f.baseline, f.peak, f.last - f.baseline, f.threads_base,
               f.threads, f.files_base, f.files, failures);
    }
    expect(nui_release() == SUCCESS, "nui_release");
    demo_state_destroy(&state);
    free(mic.samples); free(reference.samples); free(mic_file.samples); free(reference_file.samples);
    return failures == 0 ? 0 : 1;
}
