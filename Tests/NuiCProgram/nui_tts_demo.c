/*
 * nui_tts_demo.c — a C program over nui_tts.h and libnui.so: synthesizes against the reference server
 * (argv[1]: its ws:// URL) with start / send / stop (blocking), then a one-shot nui_tts_play waited for through
 * the callbacks, then cancel mid-task; checks the result codes of wrong-state calls and NULL arguments. Prints
 * `check NAME got=G want=W ok|FAIL` lines and a `summary key=value ...` line; exits 1 when a check failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nui_tts.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started, sentence_end, complete, failed, logs, log_has_key;
    long bytes;
} Counts;

static int failures = 0;

static void check(const char *name, long got, long want) {
    int ok = got == want;
    printf("check %s got=%ld want=%ld %s\n", name, got, want, ok ? "ok" : "FAIL");
    if (!ok) failures++;
}

static void on_event(void *user_data, NuiTtsEvent event, const char *taskid, const char *session_id, int ret_code,
                     const char *error_msg, const char *timestamp, const char *all_response) {
    Counts *c = (Counts *)user_data;
    (void)taskid; (void)session_id; (void)timestamp; (void)all_response;
    pthread_mutex_lock(&c->lock);
    if (event == TTS_EVENT_SYNTHESIS_STARTED) c->started++;
    if (event == TTS_EVENT_SENTENCE_END) c->sentence_end++;
    if (event == TTS_EVENT_SYNTHESIS_COMPLETE) c->complete++;
    if (event == TTS_EVENT_TASK_FAILED) { c->failed++; printf("failed %d %s\n", ret_code, error_msg); }
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
}

static void on_data(void *user_data, const char *buffer, int len) {
    Counts *c = (Counts *)user_data;
    if (buffer == NULL || len <= 0) return;
    pthread_mutex_lock(&c->lock);
    c->bytes += len;
    pthread_mutex_unlock(&c->lock);
}

static void on_log(void *user_data, int level, const char *log) {
    Counts *c = (Counts *)user_data;
    (void)level;
    pthread_mutex_lock(&c->lock);
    c->logs++;
    if (strstr(log, "sk-c-secret") != NULL) c->log_has_key++;
    pthread_mutex_unlock(&c->lock);
}

/* Waits until `*field` reaches `value` (at most 20 s); returns the field's value. */
static int wait_for(Counts *c, int *field, int value) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 20;
    pthread_mutex_lock(&c->lock);
    while (*field < value && pthread_cond_timedwait(&c->changed, &c->lock, &deadline) == 0) {}
    int got = *field;
    pthread_mutex_unlock(&c->lock);
    return got;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: nui_tts_demo ws://127.0.0.1:PORT/api-ws/v1/inference\n"); return 2; }
    char ticket[512];
    snprintf(ticket, sizeof ticket, "{\"url\": \"%s\", \"apikey\": \"sk-c-secret\", \"device_id\": \"c-demo\"}", argv[1]);
    const char *parameters = "{\"model\": \"cosyvoice-v2\", \"voice\": \"espeak-en-us\", \"format\": \"pcm\", \"sample_rate\": 16000}";
    Counts counts;
    memset(&counts, 0, sizeof counts);
    pthread_mutex_init(&counts.lock, NULL);
    pthread_cond_init(&counts.changed, NULL);
    StreamInputTtsListener listener = { on_event, on_data, on_log, &counts, NULL, NULL };

    check("create_null", nui_tts_create(NULL) == NULL, 1);
    check("start_null_handle", nui_tts_start(NULL, ticket, parameters, NULL, 2, false), NUI_ERR_MISSING_PARAMETER);
    NuiTtsHandle *tts = nui_tts_create(&listener);
    check("create", tts != NULL, 1);
    check("version", strstr(nui_tts_get_version(), "NeoNuiStreamInputTts") != NULL, 1);
    check("send_idle", nui_tts_send(tts, "x"), NUI_ERR_NO_DIALOG);
    check("stop_idle", nui_tts_stop(tts), NUI_ERR_NO_DIALOG);
    check("start_bad_volume", nui_tts_start(tts, ticket, "{\"model\": \"m\", \"voice\": \"v\", \"volume\": 101}", NULL, 2, false),
          NUI_ERR_INVALID_PARAMETER_VALUE);
    check("start_bad_level", nui_tts_start(tts, ticket, parameters, NULL, 99, false), NUI_ERR_INVALID_PARAMETER_VALUE);

    /* Streamed: start, two texts, the blocking stop. */
    check("start", nui_tts_start(tts, ticket, parameters, "c-session", 2, false), SUCCESS);
    check("start_running", nui_tts_start(tts, ticket, parameters, NULL, 2, false), NUI_ERR_DIALOG_RUNNING);
    check("send", nui_tts_send(tts, "Hello from C. "), SUCCESS);
    check("send_null", nui_tts_send(tts, NULL), NUI_ERR_INVALID_PARAMETER_VALUE);
    check("send_second", nui_tts_send(tts, "A second sentence."), SUCCESS);
    check("stop", nui_tts_stop(tts), SUCCESS);
    pthread_mutex_lock(&counts.lock);
    long streamed = counts.bytes;
    int sentences = counts.sentence_end;
    pthread_mutex_unlock(&counts.lock);
    check("streamed_complete", wait_for(&counts, &counts.complete, 1), 1);
    check("streamed_sentences", sentences, 2);
    check("streamed_audio", streamed > 16000, 1);

    /* One-shot play, waited for through the callbacks. */
    check("play", nui_tts_play(tts, ticket, "{\"model\": \"cosyvoice-v2\", \"voice\": \"espeak-en-us\", \"format\": \"mp3\", \"enable_ssml\": false}",
                               "One shot from C.", NULL, 2, false), SUCCESS);
    check("play_complete", wait_for(&counts, &counts.complete, 2), 2);

    /* Cancel mid-task: no further callback. */
    check("async_play", nui_tts_async_play(tts, ticket, parameters, "A long text to cancel while it is spoken. A long text to cancel.",
                                           NULL, 2, false), SUCCESS);
    check("cancel", nui_tts_cancel(tts), SUCCESS);
    check("cancel_idle", nui_tts_cancel(tts), NUI_ERR_NO_DIALOG);
    pthread_mutex_lock(&counts.lock);
    int complete_after_cancel = counts.complete;
    pthread_mutex_unlock(&counts.lock);
    struct timespec pause = { 0, 300 * 1000 * 1000 };
    nanosleep(&pause, NULL);
    pthread_mutex_lock(&counts.lock);
    check("no_callback_after_cancel", counts.complete, complete_after_cancel);
    pthread_mutex_unlock(&counts.lock);

    /* A task left running is cancelled by destroy. */
    check("start_before_destroy", nui_tts_start(tts, ticket, parameters, NULL, 2, false), SUCCESS);
    nui_tts_destroy(tts);
    nui_tts_destroy(NULL);

    pthread_mutex_lock(&counts.lock);
    check("failed", counts.failed, 0);
    check("key_in_logs", counts.log_has_key, 0);
    printf("summary started=%d sentence_end=%d complete=%d failed=%d bytes=%ld logs=%d\n", counts.started,
           counts.sentence_end, counts.complete, counts.failed, counts.bytes, counts.logs);
    pthread_mutex_unlock(&counts.lock);
    return failures == 0 ? 0 : 1;
}
