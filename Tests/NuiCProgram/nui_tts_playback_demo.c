/*
 * nui_tts_playback_demo.c — local playback through the C ABI (nui_tts.h "Local playback") against the reference
 * server (argv[1]: its ws:// URL), each shape once:
 *   1. render: the app's "audio callback" (a thread here) pulls 10 ms buffers with nui_tts_playback_render; no
 *      reference; a one-shot task plays to its end (started, input ended, drained, mic re-armed).
 *   2. sink + the ASR SDK (nui.h) as the reference: a push-mode dialog with AEC; the SDK's playback thread hands
 *      each buffer to the sink, which plays it into a simulated room (a 2.5 ms path at -4 dB and a 12.5 ms
 *      reflection at -10 dB) whose echo it pushes as the mic with nui_update_audio_data. The app pushes no
 *      reference for the speech; its own earcon, heard in the same room, it pushes with nui_push_reference_data
 *      (between play_start and play_over), mixed into the playback's reference. The echo-cancelled EVENT_AEC_DATA
 *      is compared with the mic (ERLE over the loud 100 ms blocks of the answer's second half). Then a cancel
 *      mid-answer stops it, and nui_set_params is refused another sample_rate while the playback exists.
 * And the result codes of bad arguments and calls in the wrong state. Prints `check NAME got=G want=W ok|FAIL`
 * lines and a `summary key=value ...` line; exits 1 when a check failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "nui.h"
#include "nui_demo_support.h" /* check() */
#include "nui_tts.h"

#define MAX_SAMPLES (16000 * 60)

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int playback[6];        /* count per playback event 100...105 */
    int order[32], ordered; /* the playback events in order */
    int64_t drained_ms, stopped_ms, input_ms;
    long bytes;             /* synthesized bytes (data callback) */
    int complete;
    /* ASR */
    int started, transcriber_complete;
    int16_t *aec;
    long aec_count;
} State;

typedef struct { /* the sink's room, touched by the playback thread only until the playback is destroyed */
    float history[400];
    int16_t *mic;
    long mic_count;
    long refused_mic_pushes;
    /* The app's own earcon, played through its own output (heard one buffer after it is handed over) and pushed
     * with nui_push_reference_data as it is handed over: mixed into the playback's reference. */
    int16_t earcon[4800];
    int earcon_count;
    long earcon_played;
    long earcon_pushes, earcon_refused;
} Room;

/* A two-tone earcon (880 then 660 Hz, 150 ms each, -12 dBFS) every 700 ms at 16 kHz. */
static int16_t earcon_at(long sample) {
    long t = sample % 11200;
    if (t >= 4800) return 0;
    return (int16_t)(8000 * sin(2 * 3.14159265358979 * (t < 2400 ? 880.0 : 660.0) * (double)sample / 16000));
}

static State state;

static void on_event(void *user_data, NuiTtsEvent event, const char *taskid, const char *session_id, int ret_code,
                     const char *error_msg, const char *timestamp, const char *all_response) {
    State *s = (State *)user_data;
    (void)taskid; (void)session_id; (void)timestamp; (void)all_response;
    pthread_mutex_lock(&s->lock);
    if (event == TTS_EVENT_SYNTHESIS_COMPLETE) s->complete++;
    if (event == TTS_EVENT_TASK_FAILED) printf("task failed %d %s\n", ret_code, error_msg);
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void on_data(void *user_data, const char *buffer, int len) {
    State *s = (State *)user_data;
    (void)buffer;
    pthread_mutex_lock(&s->lock);
    s->bytes += len;
    pthread_mutex_unlock(&s->lock);
}

static void on_playback(void *user_data, NuiTtsPlaybackEvent event, const char *session_id, int64_t position_ms) {
    State *s = (State *)user_data;
    if (session_id == NULL || event < TTS_PLAYBACK_STARTED || event > TTS_PLAYBACK_DECODE_FAILED) return;
    pthread_mutex_lock(&s->lock);
    s->playback[event - TTS_PLAYBACK_STARTED]++;
    if (s->ordered < 32) s->order[s->ordered++] = (int)event;
    if (event == TTS_PLAYBACK_DRAINED) s->drained_ms = position_ms;
    if (event == TTS_PLAYBACK_STOPPED) s->stopped_ms = position_ms;
    if (event == TTS_PLAYBACK_INPUT_ENDED) s->input_ms = position_ms;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void on_nui_event(void *app, NuiCallbackEvent event, long dialog, const char *wuw, const char *result,
                         bool finish, int code, const char *all_response) {
    State *s = (State *)app;
    (void)dialog; (void)wuw; (void)result; (void)finish; (void)code; (void)all_response;
    pthread_mutex_lock(&s->lock);
    if (event == EVENT_TRANSCRIBER_STARTED) s->started++;
    if (event == EVENT_TRANSCRIBER_COMPLETE) s->transcriber_complete++;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void on_aec(void *app, NuiCallbackEvent event, const char *info, int info_len, const char *pcm, int len) {
    State *s = (State *)app;
    (void)info; (void)info_len;
    if (event != EVENT_AEC_DATA || len <= 0) return;
    pthread_mutex_lock(&s->lock);
    long n = len / 2;
    if (s->aec_count + n <= MAX_SAMPLES) { memcpy(s->aec + s->aec_count, pcm, (size_t)n * 2); s->aec_count += n; }
    pthread_mutex_unlock(&s->lock);
}

/* The sink: plays the buffer into the room and pushes its echo as the mic. */
static void room_sink(void *user_data, const int16_t *samples, int count) {
    Room *room = (Room *)user_data;
    int16_t echo[4800];
    if (count > 4800) count = 4800;
    int16_t heard[4800];
    for (int i = 0; i < count; i++) {
        int sum = samples[i] + (room->earcon_count == count ? room->earcon[i] : 0);
        heard[i] = (int16_t)(sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum);
    }
    for (int i = 0; i < count; i++) room->earcon[i] = earcon_at(room->earcon_played + i);
    room->earcon_count = count;
    room->earcon_played += count;
    room->earcon_pushes++;
    if (nui_push_reference_data((const char *)room->earcon, count * 2, false) != SUCCESS) room->earcon_refused++;
    for (int i = 0; i < count; i++) {
        memmove(room->history, room->history + 1, sizeof room->history - sizeof room->history[0]);
        room->history[399] = heard[i];
        echo[i] = (int16_t)(0.63f * room->history[399 - 40] + 0.32f * room->history[399 - 200]);
    }
    if (nui_update_audio_data((const char *)echo, count * 2, false) == SUCCESS && room->mic_count + count <= MAX_SAMPLES) {
        memcpy(room->mic + room->mic_count, echo, (size_t)count * 2);
        room->mic_count += count;
    } else {
        room->refused_mic_pushes++;
    }
    struct timespec pause = { 0, 1250 * 1000 }; /* 10 ms of audio per 1.25 ms: about 8 times real time */
    nanosleep(&pause, NULL);
}

/* Waits until `*field` reaches `value` (at most `seconds`); returns the field's value. */
static int wait_for(int *field, int value, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&state.lock);
    while (*field < value && pthread_cond_timedwait(&state.changed, &state.lock, &deadline) == 0) {}
    int got = *field;
    pthread_mutex_unlock(&state.lock);
    return got;
}

static int playback_count(NuiTtsPlaybackEvent event) {
    pthread_mutex_lock(&state.lock);
    int n = state.playback[event - TTS_PLAYBACK_STARTED];
    pthread_mutex_unlock(&state.lock);
    return n;
}

/* The render shape's "audio callback": 10 ms buffers, about 4 times real time, until told to stop. */
typedef struct { NuiTtsPlayback *playback; int go; long loud_samples, calls; int errors; } Renderer; /* go under state.lock */

static int renderer_go(Renderer *r) {
    pthread_mutex_lock(&state.lock);
    int go = r->go;
    pthread_mutex_unlock(&state.lock);
    return go;
}

static void *render_loop(void *argument) {
    Renderer *r = (Renderer *)argument;
    int16_t buffer[160];
    struct timespec pause = { 0, 2500 * 1000 };
    while (renderer_go(r)) {
        if (nui_tts_playback_render(r->playback, buffer, 160) != SUCCESS) r->errors++;
        for (int i = 0; i < 160; i++) if (buffer[i] != 0) r->loud_samples++;
        r->calls++;
        nanosleep(&pause, NULL);
    }
    return NULL;
}

/* The energy of the mic (the echo) and of the AEC output over the loud 100 ms blocks of the answer's second half
 * (the test reports their ratio in dB: the ERLE). */
static void echo_energies(const Room *room, long speech_samples, double *echo, double *residual) {
    long first = 0;
    while (first < room->mic_count && room->mic[first] == 0) first++;
    long end = first + speech_samples;
    if (end > room->mic_count) end = room->mic_count;
    if (end > state.aec_count) end = state.aec_count;
    *echo = 0;
    *residual = 0;
    for (long block = first + speech_samples / 2; block + 1600 <= end; block += 1600) {
        double e = 0, r = 0;
        for (long i = block; i < block + 1600; i++) {
            e += (double)room->mic[i] * room->mic[i];
            r += (double)state.aec[i] * state.aec[i];
        }
        if (e / 1600 <= 300.0 * 300.0) continue;
        *echo += e;
        *residual += r;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: nui_tts_playback_demo ws://127.0.0.1:PORT/api-ws/v1/inference WORKSPACE\n"); return 2; }
    char ticket[512], init[1024];
    snprintf(ticket, sizeof ticket, "{\"url\": \"%s\", \"apikey\": \"sk-c-play\", \"device_id\": \"c-play\"}", argv[1]);
    const char *parameters = "{\"model\": \"cosyvoice-v2\", \"voice\": \"espeak-en-us\", \"format\": \"pcm\", \"sample_rate\": 16000}";
    const char *text = "The loop is whole now. The device speaks its answer into the room, and the front end hears its "
                       "own voice as the reference. Nothing is pushed by the application itself.";
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.lock, NULL);
    pthread_cond_init(&state.changed, NULL);
    state.aec = calloc(MAX_SAMPLES, sizeof(int16_t));
    StreamInputTtsListener listener = { on_event, on_data, NULL, &state, on_playback, NULL };
    NuiTtsHandle *tts = nui_tts_create(&listener);
    NuiTtsPlayback *render = NULL, *sink = NULL, *other = NULL;

    /* Bad arguments. */
    NuiTtsPlaybackConfig config;
    memset(&config, 0, sizeof config);
    check("create_null_config", nui_tts_playback_create(NULL, &render), NUI_ERR_MISSING_PARAMETER);
    check("create_null_out", nui_tts_playback_create(&config, NULL), NUI_ERR_MISSING_PARAMETER);
    config.sample_rate = 7000;
    check("create_bad_rate", nui_tts_playback_create(&config, &render), NUI_ERR_UNSUPPORTED_SAMPLE_RATE);
    check("create_bad_rate_null", render == NULL, 1);
    config.sample_rate = 0; config.channel_count = 3;
    check("create_bad_channels", nui_tts_playback_create(&config, &render), NUI_ERR_INVALID_PARAMETER_VALUE);
    config.channel_count = 0; config.echo_reference = (NuiTtsEchoReference)7;
    check("create_bad_reference", nui_tts_playback_create(&config, &render), NUI_ERR_INVALID_PARAMETER_VALUE);
    config.echo_reference = NUI_TTS_REFERENCE_NUI;
    check("create_nui_before_set_params", nui_tts_playback_create(&config, &render), NUI_ERR_PARAMS_NOT_SET);
    config.echo_reference = NUI_TTS_REFERENCE_NONE; config.sink_buffer_ms = 500;
    config.sink = room_sink;
    check("create_bad_sink_buffer", nui_tts_playback_create(&config, &render), NUI_ERR_INVALID_PARAMETER_VALUE);
    check("render_null", nui_tts_playback_render(NULL, NULL, 0), NUI_ERR_MISSING_PARAMETER);
    check("stop_null", nui_tts_playback_stop(NULL), NUI_ERR_MISSING_PARAMETER);
    check("set_playback_null_handle", nui_tts_set_playback(NULL, NULL), NUI_ERR_MISSING_PARAMETER);
    nui_tts_playback_destroy(NULL);

    /* 1. The render shape, no reference. */
    memset(&config, 0, sizeof config);
    check("create_render", nui_tts_playback_create(&config, &render), SUCCESS);
    int16_t scratch[160];
    check("render_negative", nui_tts_playback_render(render, scratch, -1), NUI_ERR_INVALID_AUDIO_DATA);
    check("render_null_buffer", nui_tts_playback_render(render, NULL, 160), NUI_ERR_INVALID_AUDIO_DATA);
    check("attach_render", nui_tts_set_playback(tts, render), SUCCESS);
    NuiTtsHandle *second = nui_tts_create(&listener);
    check("attach_to_second", nui_tts_set_playback(second, render), NUI_ERR_INVALID_PARAMETER_VALUE);
    nui_tts_destroy(second);
    Renderer renderer = { render, 1, 0, 0, 0 };
    pthread_t thread;
    pthread_create(&thread, NULL, render_loop, &renderer);
    check("play_render", nui_tts_play(tts, ticket, parameters, text, NULL, 2, false), SUCCESS);
    check("attach_while_running", nui_tts_set_playback(tts, NULL), NUI_ERR_DIALOG_RUNNING);
    check("render_drained", wait_for(&state.playback[TTS_PLAYBACK_DRAINED - 100], 1, 60), 1);
    check("render_rearmed", wait_for(&state.playback[TTS_PLAYBACK_MIC_REARMED - 100], 1, 20), 1);
    pthread_mutex_lock(&state.lock);
    renderer.go = 0;
    pthread_mutex_unlock(&state.lock);
    pthread_join(thread, NULL);
    pthread_mutex_lock(&state.lock);
    long speech = state.bytes / 2;
    int in_order = state.ordered >= 4 && state.order[0] == TTS_PLAYBACK_STARTED && state.order[state.ordered - 1] == TTS_PLAYBACK_MIC_REARMED
                   && state.order[state.ordered - 2] == TTS_PLAYBACK_DRAINED;
    long drained_ms = (long)state.drained_ms, input_ms = (long)state.input_ms;
    pthread_mutex_unlock(&state.lock);
    check("render_events_in_order", in_order, 1);
    check("render_drained_at_the_end", labs(drained_ms - speech * 1000 / 16000) <= 1, 1);
    check("render_input_ms", input_ms, drained_ms);
    check("render_errors", renderer.errors, 0);
    /* Every sample that is not silence in the synthesis was played (pcm at the device rate, volume 1). */
    check("render_played_the_speech", renderer.loud_samples > speech / 2 && renderer.loud_samples <= speech, 1);
    NuiTtsPlaybackCounts counts;
    check("counts", nui_tts_playback_get_counts(render, &counts), SUCCESS);
    check("counts_rendered", counts.rendered_frames, renderer.calls * 160);
    check("detach_render", nui_tts_set_playback(tts, NULL), SUCCESS);
    nui_tts_playback_destroy(render);
    long render_speech = speech;

    /* 2. The sink shape with the ASR SDK as the reference. */
    NuiSdkListener asr = {0};
    asr.event_callback = on_nui_event;
    asr.assist_event_callback = on_aec;
    asr.user_data = &state;
    snprintf(init, sizeof init, "{\"url\": \"%s\", \"apikey\": \"sk-c-asr\", \"device_id\": \"c-play\", \"service_mode\": \"1\", "
             "\"audio_update_manually\": \"true\", \"workspace\": \"%s\"}", argv[1], argv[2]);
    check("nui_initialize", nui_initialize(init, &asr, LOG_LEVEL_NONE, false), SUCCESS);
    check("nui_set_params", nui_set_params("{\"service_type\": 4, \"enable_aec\": true, \"nls_config\": {\"model\": "
                                           "\"paraformer-realtime-v2\", \"sr_format\": \"pcm\", \"sample_rate\": 16000}}"), SUCCESS);
    memset(&config, 0, sizeof config);
    config.echo_reference = NUI_TTS_REFERENCE_NUI;
    config.sample_rate = 48000;
    check("create_nui_wrong_rate", nui_tts_playback_create(&config, &other), NUI_ERR_UNSUPPORTED_SAMPLE_RATE);
    config.sample_rate = 16000;
    config.buffer_ms = 20000; /* the whole answer: decoding never lags the 8x sink */
    Room *room = calloc(1, sizeof *room);
    room->mic = calloc(MAX_SAMPLES, sizeof(int16_t));
    config.sink = room_sink;
    config.sink_user_data = room;
    check("create_sink", nui_tts_playback_create(&config, &sink), SUCCESS);
    check("render_sink_shaped", nui_tts_playback_render(sink, scratch, 160), NUI_ERR_INVALID_PARAMETER_VALUE);
    struct timespec before = { 0, 50 * 1000 * 1000 };
    nanosleep(&before, NULL); /* the sink runs before the dialog: its reference is refused and counted */
    check("counts_before_dialog", nui_tts_playback_get_counts(sink, &counts), SUCCESS);
    check("refused_before_dialog", counts.refused_reference_samples > 0, 1);
    long refused_before = (long)counts.refused_reference_samples;
    /* The playback renders at nls_config.sample_rate: another rate is refused while it exists. */
    check("set_params_other_rate", nui_set_params("{\"service_type\": 4, \"enable_aec\": true, \"nls_config\": {\"model\": "
                                                  "\"paraformer-realtime-v2\", \"sr_format\": \"pcm\", \"sample_rate\": 48000}}"),
          NUI_ERR_UNSUPPORTED_SAMPLE_RATE);
    check("dialog_start", nui_dialog_start(MODE_P2T, ""), SUCCESS);
    check("dialog_started", wait_for(&state.started, 1, 20), 1);
    check("play_start_earcon", nui_dialog_action("{\"type\": \"action\", \"command\": \"play_start\"}"), SUCCESS);
    check("attach_sink", nui_tts_set_playback(tts, sink), SUCCESS);
    pthread_mutex_lock(&state.lock);
    state.bytes = 0;
    memset(state.playback, 0, sizeof state.playback);
    state.ordered = 0;
    pthread_mutex_unlock(&state.lock);
    check("play_sink", nui_tts_play(tts, ticket, parameters, text, NULL, 2, false), SUCCESS);
    check("sink_drained", wait_for(&state.playback[TTS_PLAYBACK_DRAINED - 100], 1, 60), 1);
    check("sink_rearmed", wait_for(&state.playback[TTS_PLAYBACK_MIC_REARMED - 100], 1, 20), 1);

    /* Cancel mid-answer: stopped, never drained. */
    check("play_to_cancel", nui_tts_play(tts, ticket, parameters, text, NULL, 2, false), SUCCESS);
    check("cancel_started", wait_for(&state.playback[TTS_PLAYBACK_STARTED - 100], 2, 30), 2);
    nanosleep(&before, NULL);
    check("cancel", nui_tts_cancel(tts), SUCCESS);
    check("cancel_stopped", wait_for(&state.playback[TTS_PLAYBACK_STOPPED - 100], 1, 10), 1);
    check("cancel_not_drained", playback_count(TTS_PLAYBACK_DRAINED), 1);
    check("stop_idle", nui_tts_playback_stop(sink), SUCCESS);
    check("volume", nui_tts_playback_set_volume(sink, 0.5f), SUCCESS);

    check("counts_sink", nui_tts_playback_get_counts(sink, &counts), SUCCESS);
    check("play_over_earcon", nui_dialog_action("{\"type\": \"action\", \"command\": \"play_over\"}"), SUCCESS);
    /* Destroying an attached playback detaches it; the sink is not called after it returned. */
    nui_tts_playback_destroy(sink);
    /* Detached: the app's reference goes to the dialog's front end directly again (taken: SUCCESS). */
    int16_t quiet[160] = {0};
    check("push_reference_detached", nui_push_reference_data((const char *)quiet, sizeof quiet, false), SUCCESS);
    check("dialog_cancel", nui_dialog_cancel(false), SUCCESS);
    check("dialog_complete", wait_for(&state.transcriber_complete, 1, 60), 1);
    check("nui_release", nui_release(), SUCCESS);
    long sink_speech = render_speech; /* the same text and voice */
    double echo, residual;
    echo_energies(room, sink_speech, &echo, &residual);
    check("aec_covers_the_mic", labs(state.aec_count - room->mic_count) <= 320, 1);

    nui_tts_destroy(tts);
    printf("summary speech=%ld loud=%ld drained_ms=%ld refused_before_dialog=%ld reference_pushed=%lld mic=%ld aec=%ld "
           "refused_mic_pushes=%ld earcon_pushes=%ld earcon_refused=%ld echo=%.0f residual=%.0f stopped_ms=%lld failed_checks=%d\n",
           render_speech, renderer.loud_samples, drained_ms, refused_before, (long long)counts.reference_samples_pushed, room->mic_count,
           state.aec_count, room->refused_mic_pushes, room->earcon_pushes, room->earcon_refused, echo, residual, (long long)state.stopped_ms, failed_checks());
    free(room->mic);
    free(room);
    free(state.aec);
    return failed_checks() == 0 ? 0 : 1;
}
