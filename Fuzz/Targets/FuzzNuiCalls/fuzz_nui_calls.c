/*
 * libFuzzer target: random sequences of the C ABI's calls (nui.h) with random arguments: NULL pointers, negative,
 * odd and huge lengths (huge only with NULL, a length beyond a real buffer would be the caller's bug), unknown enum
 * values, calls in every state, parameter JSON from the input. Each byte is an operation, followed by the bytes it
 * takes as arguments. The URL points at 127.0.0.1 port 9, where nothing listens: a dialog fails to connect, no
 * network is needed. Every input ends with nui_release(), so each run starts uninitialized. save_log is always
 * false (fuzzed parameters must not create directories). A crash, a hang, a sanitizer report or a result code
 * outside nui_code.h is a finding.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nui.h"

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} Reader;

static int next_byte(Reader *r) { return r->offset < r->size ? r->data[r->offset++] : 0; }

static int32_t next_int32(Reader *r) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | (uint32_t)next_byte(r);
    return (int32_t)v;
}

/* A NUL-terminated copy of the next n bytes (n from one byte), owned by the caller. */
static char *next_text(Reader *r) {
    size_t n = (size_t)next_byte(r);
    if (n > r->size - r->offset) n = r->size - r->offset;
    char *text = malloc(n + 1);
    memcpy(text, r->data + r->offset, n);
    text[n] = 0;
    r->offset += n;
    return text;
}

static const char *init_params[] = {
    "{\"url\":\"ws://127.0.0.1:9/api-ws/v1/inference\",\"apikey\":\"fuzz-key\",\"service_mode\":\"1\","
    "\"device_id\":\"fuzz\",\"audio_update_manually\":\"true\",\"workspace\":\"/tmp\"}",
    "{\"url\":\"ws://127.0.0.1:9/api-ws/v1/inference\",\"apikey\":\"fuzz-key\",\"service_mode\":\"1\","
    "\"device_id\":\"fuzz\",\"audio_update_manually\":\"false\"}",
    "{\"url\":\"ws://127.0.0.1:9/ws/v1\",\"app_key\":\"fuzz-app\",\"token\":\"fuzz-token\",\"service_mode\":\"1\","
    "\"device_id\":\"fuzz\",\"audio_update_manually\":\"true\",\"workspace\":\"/tmp\"}",
};
static const char *set_params[] = {
    "{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\",\"sr_format\":\"pcm\",\"sample_rate\":16000}}",
    "{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\",\"sr_format\":\"opus\",\"sample_rate\":16000}}",
    "{\"service_type\":4,\"nls_config\":{\"model\":\"m\",\"sr_format\":\"pcm\",\"sample_rate\":48000},\"enable_aec\":false}",
};
static const char *actions[] = {
    "{\"type\":\"action\",\"command\":\"play_start\"}",
    "{\"type\":\"action\",\"command\":\"play_over\"}",
    "{\"type\":\"action\",\"command\":\"context\",\"context\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi\","
    "\"type\":\"input_text\"}]}]}",
};

static int16_t audio[4800];

static void on_event(void *user, NuiCallbackEvent event, long dialog, const char *wuw, const char *asr, bool finish,
                     int code, const char *all) {
    (void)user; (void)event; (void)dialog; (void)finish; (void)code;
    volatile size_t n = (wuw ? strlen(wuw) : 0) + (asr ? strlen(asr) : 0) + (all ? strlen(all) : 0);
    n += strlen(nui_get_all_response());
    (void)n;
}

static int on_need_audio(void *user, char *buffer, int len) {
    (void)user;
    if (len > 0) memset(buffer, 0, (size_t)len);
    return len;
}

static void on_assist(void *user, NuiCallbackEvent event, const char *info, int info_len, const char *buffer, int len) {
    (void)user; (void)event;
    volatile char sink = 0;
    if (info && info_len > 0) sink ^= info[info_len - 1];
    if (buffer && len > 0) sink ^= buffer[len - 1];
    (void)sink;
}

static void on_log(void *user, NuiSdkLogLevel level, const char *log) {
    (void)user; (void)level;
    volatile size_t n = strlen(log);
    (void)n;
}

static const NuiSdkListener listener = {
    .event_callback = on_event, .user_data_callback = on_need_audio, .assist_event_callback = on_assist,
    .log_track_callback = on_log,
};

/* A parameter text: one of the valid ones, NULL, "", or text from the input. */
static const char *pick_text(Reader *r, const char **valid, int count, char **owned) {
    int choice = next_byte(r) % (count + 3);
    if (choice < count) return valid[choice];
    if (choice == count) return NULL;
    if (choice == count + 1) return "";
    *owned = next_text(r);
    return *owned;
}

static int audio_call(Reader *r, int (*push)(const char *, int, bool)) {
    int kind = next_byte(r) % 6;
    int len = (next_byte(r) << 8 | next_byte(r)) % (int)sizeof(audio);
    switch (kind) {
    case 0: return push(NULL, len, false);
    case 1: return push(NULL, (int)0x7fffffff, true);
    case 2: return push((const char *)audio, -len - 1, false);
    case 3: return push((const char *)audio, 0, false);
    case 4: return push((const char *)audio, len | 1, false); /* odd */
    default: return push((const char *)audio, len & ~1, false);
    }
}

static void check_code(int code) {
    /* Every call answers with a result code of nui_code.h: SUCCESS or 240xxx. */
    if (code != SUCCESS && (code < 240000 || code > 241000)) abort();
}

/* At exit, before LeakSanitizer's check: a released dialog's threads (the front end's drain thread polls every
 * 50 ms) finish and free what they hold, so the check sees only real leaks. */
static void let_threads_finish(void) { usleep(300 * 1000); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc; (void)argv;
    atexit(let_threads_finish);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    Reader r = {data, size, 0};
    int operations = 0;
    while (r.offset < r.size && operations++ < 24) {
        char *owned = NULL;
        int code = SUCCESS;
        switch (next_byte(&r) % 10) {
        case 0: {
            int level = next_byte(&r) % 8 == 0 ? next_int32(&r) : LOG_LEVEL_VERBOSE + next_byte(&r) % 6;
            const char *text = pick_text(&r, init_params, 3, &owned);
            code = nui_initialize(text, next_byte(&r) % 8 == 0 ? NULL : &listener, (NuiSdkLogLevel)level, false);
            break;
        }
        case 1: code = nui_set_params(pick_text(&r, set_params, 3, &owned)); break;
        case 2: {
            int mode = next_byte(&r) % 4 == 0 ? next_int32(&r) : MODE_P2T;
            code = nui_dialog_start((NuiVadMode)mode, pick_text(&r, NULL, 0, &owned));
            break;
        }
        case 3: code = nui_dialog_action(pick_text(&r, actions, 3, &owned)); break;
        case 4: code = audio_call(&r, nui_update_audio_data); break;
        case 5: code = audio_call(&r, nui_push_reference_data); break;
        case 6: code = nui_dialog_cancel(next_byte(&r) & 1); break;
        case 7: code = nui_release(); break;
        case 8: {
            volatile size_t n = strlen(nui_get_version()) + strlen(nui_get_all_response());
            (void)n;
            break;
        }
        default: code = audio_call(&r, nui_update_audio_data); break;
        }
        free(owned);
        check_code(code);
    }
    nui_release();
    return 0;
}
