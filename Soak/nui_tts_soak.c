/*
 * nui_tts_soak.c — many answers through libnui.so's stream-input TTS C API (nui_tts.h), as a device app uses it.
 *
 *   nui_tts_soak URL COUNT [pcm|mp3|opus|wav]
 *
 * COUNT answers of two sentences (nui_tts_start, two nui_tts_send, nui_tts_stop), on a handle that is destroyed
 * and made anew every 50 answers (nui_tts_destroy / nui_tts_create: what a handle holds must go with it);
 * resident memory, threads and open files after answer 10 and at the end. Prints one `soak surface=c-tts ...`
 * line. Exit status 0 when every call returned SUCCESS, every answer completed with audio and no task failed, and
 * memory, threads and files stayed flat; 1 otherwise, 2 on bad usage. Built and run by Soak/run.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include "nui_tts.h"
#include "soak_proc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIMIT_BYTES (2L * 1024 * 1024)
#define ANSWERS_PER_HANDLE 50

static int failures = 0;

static void expect(int condition, const char *what) {
    if (!condition) {
        failures++;
        printf("FAIL %s\n", what);
    }
}

struct tally {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int complete, failed;
    long bytes;
};

static void on_event(void *user_data, NuiTtsEvent event, const char *taskid, const char *session_id, int ret_code,
                     const char *error_msg, const char *timestamp, const char *all_response) {
    (void)taskid; (void)session_id; (void)timestamp; (void)all_response;
    struct tally *t = user_data;
    pthread_mutex_lock(&t->lock);
    if (event == TTS_EVENT_SYNTHESIS_COMPLETE) t->complete++;
    if (event == TTS_EVENT_TASK_FAILED) {
        t->failed++;
        printf("FAIL task failed: %d %s\n", ret_code, error_msg);
    }
    pthread_cond_broadcast(&t->changed);
    pthread_mutex_unlock(&t->lock);
}

static void on_data(void *user_data, const char *buffer, int len) {
    (void)buffer;
    struct tally *t = user_data;
    pthread_mutex_lock(&t->lock);
    t->bytes += len;
    pthread_mutex_unlock(&t->lock);
}

/* Waits (at most 10 s) until `count` answers completed or one failed. */
static int wait_complete(struct tally *t, int count) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&t->lock);
    while (t->complete < count && t->failed == 0 &&
           pthread_cond_timedwait(&t->changed, &t->lock, &deadline) == 0) {}
    int done = t->complete >= count;
    pthread_mutex_unlock(&t->lock);
    return done;
}

int main(int argc, char **argv) {
    if (argc < 3 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s URL COUNT [pcm|mp3|opus|wav]\n", argv[0]);
        return 2;
    }
    int count = atoi(argv[2]);
    const char *format = argc > 3 ? argv[3] : "pcm";
    static const char *sentences[] = {
        "The kitchen light is on, and the oven will be ready in ten minutes. ",
        "Tomorrow brings light rain in the morning, with sunshine after noon. ",
        "Your next meeting starts at half past three in the small conference room. ",
        "I have added milk, eggs and two loaves of bread to the shopping list. ",
    };
    char ticket[512], parameters[256];
    snprintf(ticket, sizeof ticket, "{\"url\":\"%s\",\"apikey\":\"soak-key\",\"device_id\":\"nui-tts-soak-c\"}", argv[1]);
    snprintf(parameters, sizeof parameters,
             "{\"model\":\"cosyvoice-v2\",\"voice\":\"espeak-en-us\",\"format\":\"%s\",\"sample_rate\":16000}", format);
    struct tally tally = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    StreamInputTtsListener listener;
    memset(&listener, 0, sizeof listener);
    listener.tts_event_callback = on_event;
    listener.tts_data_callback = on_data;
    listener.user_data = &tally;

    NuiTtsHandle *handle = NULL;
    struct run_figures f = {0};
    int handles = 0;
    for (int i = 0; i < count; i++) {
        if (i % ANSWERS_PER_HANDLE == 0) {
            if (handle) nui_tts_destroy(handle);
            handle = nui_tts_create(&listener);
            handles++;
            expect(handle != NULL, "nui_tts_create");
            if (!handle) break;
        }
        expect(nui_tts_start(handle, ticket, parameters, NULL, 0, false) == SUCCESS, "nui_tts_start");
        expect(nui_tts_send(handle, sentences[i % 4]) == SUCCESS, "nui_tts_send");
        expect(nui_tts_send(handle, sentences[(i + 1) % 4]) == SUCCESS, "nui_tts_send");
        expect(nui_tts_stop(handle) == SUCCESS, "nui_tts_stop");
        expect(wait_complete(&tally, i + 1), "TTS_EVENT_SYNTHESIS_COMPLETE");
        run_figures_sample(&f, i, count);
    }
    if (handle) nui_tts_destroy(handle);
    pthread_mutex_lock(&tally.lock);
    expect(tally.failed == 0, "no TTS_EVENT_TASK_FAILED");
    expect(tally.complete == count, "every answer completed");
    expect(tally.bytes > 0, "audio delivered");
    pthread_mutex_unlock(&tally.lock);
    expect(f.last - f.baseline <= LIMIT_BYTES, "RSS growth from answer 10 to the end <= 2 MiB");
    expect(f.threads <= f.threads_base, "threads flat");
    expect(f.files <= f.files_base, "open files flat");
    printf("soak surface=c-tts tasks=%d handles=%d format=%s audio_bytes=%ld rss_baseline=%ld rss_peak=%ld rss_growth=%ld "
           "threads=%d->%d fds=%d->%d failures=%d\n", tally.complete, handles, format, tally.bytes, f.baseline, f.peak,
           f.last - f.baseline, f.threads_base, f.threads, f.files_base, f.files, failures);
    return failures == 0 ? 0 : 1;
}
