/*
 * nui_demo.c — a C99 program that runs one NUI dialog through the C API (nui.h, libnui.so).
 *
 *   nui_demo URL MIC.wav REFERENCE.wav [--seconds S] [--speed X] [--aec-out FILE] [--sr-format pcm|opus] [--pull]
 *            [--workspace DIR] [--release-in-callback]
 *
 * It first checks the error paths (calls in the wrong state, NULL pointers, unknown enum values), then
 * initializes the SDK in push mode against URL, pushes the mic and the reference (the audio "played") from two
 * threads in 20 ms chunks at X times real time between play_start and play_over, ends the dialog with
 * nui_dialog_cancel(false), waits for EVENT_TRANSCRIBER_COMPLETE, releases the SDK and prints one `summary`
 * line. With --aec-out it writes the EVENT_AEC_DATA buffers (raw 16-bit PCM) to FILE. With --pull it runs in pull
 * mode instead (audio_update_manually "false"): the SDK asks for the mic audio through user_data_callback, at real
 * time; the reference is not used. With --release-in-callback the event callback itself calls nui_release() when
 * EVENT_TRANSCRIBER_COMPLETE arrives (calls from inside a callback must not deadlock).
 * Exit status: 0 when every check passed and the dialog completed, 1 otherwise, 2 on bad usage.
 * Built and run by Tests/NuiCTests against the reference server (Scripts/reference-server/server.py).
 */
#define _POSIX_C_SOURCE 200809L
#include "nui.h"
#include "nui_demo_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *option(int argc, char **argv, const char *name, const char *fallback) {
    for (int i = 4; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return fallback;
}

/* Before nui_initialize: every call but nui_get_version / nui_get_all_response reports it; NULL is rejected. */
static void check_uninitialized(const NuiSdkListener *listener, const char *init_params) {
    char pcm[640] = {0};
    check("version before init is not NULL", nui_get_version() != NULL ? 0 : -1, 0);
    check("all_response before init is not NULL", nui_get_all_response() != NULL ? 0 : -1, 0);
    check("set_params before init", nui_set_params("{}"), NUI_ERR_NOT_INITIALIZED);
    check("dialog_start before init", nui_dialog_start(MODE_P2T, ""), NUI_ERR_NOT_INITIALIZED);
    check("dialog_action before init", nui_dialog_action("{\"type\":\"action\",\"command\":\"play_start\"}"),
          NUI_ERR_NOT_INITIALIZED);
    check("update_audio_data before init", nui_update_audio_data(pcm, (int)sizeof pcm, false),
          NUI_ERR_NOT_INITIALIZED);
    check("push_reference_data before init", nui_push_reference_data(pcm, (int)sizeof pcm, false),
          NUI_ERR_NOT_INITIALIZED);
    check("dialog_cancel before init", nui_dialog_cancel(false), NUI_ERR_NOT_INITIALIZED);
    check("release before init", nui_release(), NUI_ERR_NOT_INITIALIZED);
    check("initialize NULL parameters", nui_initialize(NULL, listener, LOG_LEVEL_INFO, false), NUI_ERR_INVALID_JSON);
    check("initialize NULL listener", nui_initialize(init_params, NULL, LOG_LEVEL_INFO, false),
          NUI_ERR_MISSING_PARAMETER);
    check("initialize unknown log level", nui_initialize(init_params, listener, (NuiSdkLogLevel)42, false),
          NUI_ERR_INVALID_PARAMETER_VALUE);
    check("initialize negative log level", nui_initialize(init_params, listener, (NuiSdkLogLevel)-1, false),
          NUI_ERR_INVALID_PARAMETER_VALUE);
}

/* Initialized, no dialog yet. */
static void check_initialized(const NuiSdkListener *listener, const char *init_params, int pull) {
    char pcm[640] = {0};
    check("initialize twice", nui_initialize(init_params, listener, LOG_LEVEL_INFO, false),
          NUI_ERR_ALREADY_INITIALIZED);
    check("dialog_start before set_params", nui_dialog_start(MODE_P2T, ""), NUI_ERR_PARAMS_NOT_SET);
    check("set_params NULL", nui_set_params(NULL), NUI_ERR_INVALID_JSON);
    check("set_params not JSON", nui_set_params("{not json"), NUI_ERR_INVALID_JSON);
    check("dialog_cancel without dialog", nui_dialog_cancel(false), NUI_ERR_NO_DIALOG);
    check("update_audio_data without dialog", nui_update_audio_data(pcm, (int)sizeof pcm, false),
          pull ? NUI_ERR_MANUAL_AUDIO_DISABLED : NUI_ERR_NO_DIALOG);
}

/* Parameters set, no dialog yet. */
static void check_configured(void) {
    check("dialog_start unknown vad mode", nui_dialog_start((NuiVadMode)77, ""), NUI_ERR_UNSUPPORTED_VAD_MODE);
    check("dialog_start negative vad mode", nui_dialog_start((NuiVadMode)-5, ""), NUI_ERR_UNSUPPORTED_VAD_MODE);
    check("dialog_start MODE_KWS", nui_dialog_start(MODE_KWS, ""), NUI_ERR_UNSUPPORTED_VAD_MODE);
}

/* A dialog runs. */
static void check_running(void) {
    char pcm[640] = {0};
    check("dialog_start twice", nui_dialog_start(MODE_P2T, ""), NUI_ERR_DIALOG_RUNNING);
    check("set_params while running", nui_set_params("{}"), NUI_ERR_DIALOG_RUNNING);
    check("update_audio_data NULL", nui_update_audio_data(NULL, 640, false), NUI_ERR_INVALID_AUDIO_DATA);
    check("update_audio_data negative length", nui_update_audio_data(pcm, -2, false), NUI_ERR_INVALID_AUDIO_DATA);
    check("update_audio_data odd length", nui_update_audio_data(pcm, 3, false), NUI_ERR_INVALID_AUDIO_DATA);
    check("push_reference_data NULL", nui_push_reference_data(NULL, 640, false), NUI_ERR_INVALID_AUDIO_DATA);
    check("dialog_action NULL", nui_dialog_action(NULL), NUI_ERR_INVALID_JSON);
    check("update_audio_data zero bytes", nui_update_audio_data(pcm, 0, false), SUCCESS);
}

/* A dialog runs in pull mode: the SDK asks for the mic audio, pushing is refused. */
static void check_running_pull(void) {
    char pcm[640] = {0};
    check("update_audio_data in pull mode", nui_update_audio_data(pcm, (int)sizeof pcm, false),
          NUI_ERR_MANUAL_AUDIO_DISABLED);
    check("push_reference_data in pull mode", nui_push_reference_data(pcm, (int)sizeof pcm, false),
          NUI_ERR_MANUAL_AUDIO_DISABLED);
}

/* After nui_release. */
static void check_released(void) {
    check("release twice", nui_release(), NUI_ERR_NOT_INITIALIZED);
    check("set_params after release", nui_set_params("{}"), NUI_ERR_NOT_INITIALIZED);
    check("dialog_start after release", nui_dialog_start(MODE_P2T, ""), NUI_ERR_NOT_INITIALIZED);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s URL MIC.wav REFERENCE.wav [--seconds S] [--speed X] [--aec-out FILE] "
                        "[--sr-format pcm|opus] [--pull] [--workspace DIR] [--release-in-callback]\n", argv[0]);
        return 2;
    }
    struct pcm16 mic, reference;
    if (read_wav(argv[2], &mic) != 0 || read_wav(argv[3], &reference) != 0) return 2;
    if (mic.sample_rate != reference.sample_rate) {
        fprintf(stderr, "error: the mic and reference sample rates differ\n");
        return 2;
    }
    double seconds = atof(option(argc, argv, "--seconds", "0"));
    double speed = atof(option(argc, argv, "--speed", "4"));
    const char *aec_path = option(argc, argv, "--aec-out", NULL);
    const char *sr_format = option(argc, argv, "--sr-format", "pcm");
    const char *workspace = option(argc, argv, "--workspace", "/tmp");
    int pull = 0;
    int release_in_callback = 0;
    for (int i = 4; i < argc; i++) {
        pull |= strcmp(argv[i], "--pull") == 0;
        release_in_callback |= strcmp(argv[i], "--release-in-callback") == 0;
    }
    if (speed <= 0) speed = 1;

    struct demo_state state;
    demo_state_init(&state, aec_path);
    NuiSdkListener listener;
    memset(&listener, 0, sizeof listener);
    demo_listener(&listener, &state);
    state.release_in_callback = release_in_callback;
    size_t frames = mic.count < reference.count ? mic.count : reference.count;
    if (seconds > 0 && (size_t)(seconds * mic.sample_rate) < frames) frames = (size_t)(seconds * mic.sample_rate);
    if (pull) demo_pull_from(&listener, &state, &mic, frames);

    char init_params[1024], params[512];
    snprintf(init_params, sizeof init_params,
             "{\"url\":\"%s\",\"apikey\":\"demo-key\",\"device_id\":\"nui-demo-c\",\"service_mode\":\"1\","
             "\"audio_update_manually\":\"%s\",\"workspace\":\"%s\",\"log_track_level\":3}", argv[1],
             pull ? "false" : "true", workspace);
    snprintf(params, sizeof params,
             "{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\",\"sr_format\":\"%s\","
             "\"sample_rate\":%d}}", sr_format, mic.sample_rate);
    check_uninitialized(&listener, init_params);
    check("initialize", nui_initialize(init_params, &listener, LOG_LEVEL_INFO, false), SUCCESS);
    printf("version %s\n", nui_get_version());
    check("version after init is not empty", nui_get_version()[0] != 0 ? 0 : -1, 0);
    check_initialized(&listener, init_params, pull);
    check("set_params", nui_set_params(params), SUCCESS);
    check_configured();
    check("dialog_start", nui_dialog_start(MODE_P2T, ""), SUCCESS);
    if (pull) {
        check_running_pull();
        check("everything pulled", demo_wait_pulled(&state, (int)(frames / (size_t)mic.sample_rate) + 20) ? 0 : -1, 0);
    } else {
        check_running();
        check("dialog_action play_start", nui_dialog_action("{\"type\":\"action\",\"command\":\"play_start\"}"),
              SUCCESS);
        push_both(&mic, &reference, frames, speed, &state);
        check("dialog_action play_over", nui_dialog_action("{\"type\":\"action\",\"command\":\"play_over\"}"),
              SUCCESS);
    }
    check("dialog_cancel", nui_dialog_cancel(false), SUCCESS);
    int completed = demo_wait_complete(&state, 60);
    check("transcriber complete within 60 s", completed ? 0 : -1, 0);
    if (release_in_callback) {
        check("STATE_CLOSE after nui_release in the callback", demo_wait_audio_state(&state, STATE_CLOSE, 10) ? 0 : -1, 0);
        pthread_mutex_lock(&state.lock);
        int code = state.release_code;
        pthread_mutex_unlock(&state.lock);
        check("release inside the event callback", code, SUCCESS);
    } else {
        check("release", nui_release(), SUCCESS);
    }
    check_released();

    demo_print_summary(&state, pull ? 0 : frames * 2);
    demo_state_destroy(&state);
    free(mic.samples);
    free(reference.samples);
    return (failed_checks() == 0 && completed) ? 0 : 1;
}
