// nui_tts_cpp_smoke.cpp — C++ over nui_tts.hpp: StreamInputTtsSdk start / send / stop against the reference
// server (argv[1]), the codes of calls before start and with another listener; then local playback:
// StreamInputTtsPlayback (render shape) attached to a StreamInputTtsSdk before its first play, a one-shot task
// rendered to its end through the render entry, the playback events through the listener. Prints check lines
// and a summary.
#include <atomic>
#include <cstdio>
#include <time.h>
#include "nui.hpp"
#include "nui_tts.hpp"

static int failures = 0;
static void check(const char *name, long got, long want) {
    std::printf("check %s got=%ld want=%ld %s\n", name, got, want, got == want ? "ok" : "FAIL");
    if (got != want) failures++;
}

struct Counts {
    std::atomic<int> complete{0};
    std::atomic<long> bytes{0};
    std::atomic<int> started{0}, drained{0}, rearmed{0};
};

static void on_event(void *user_data, NuiTtsEvent event, const char *, const char *, int, const char *, const char *,
                     const char *) {
    if (event == TTS_EVENT_SYNTHESIS_COMPLETE) static_cast<Counts *>(user_data)->complete++;
}
static void on_data(void *user_data, const char *, int len) { static_cast<Counts *>(user_data)->bytes += len; }
static void on_playback(void *user_data, NuiTtsPlaybackEvent event, const char *, int64_t) {
    Counts *counts = static_cast<Counts *>(user_data);
    if (event == TTS_PLAYBACK_STARTED) counts->started++;
    if (event == TTS_PLAYBACK_DRAINED) counts->drained++;
    if (event == TTS_PLAYBACK_MIC_REARMED) counts->rearmed++;
}

/* A one-shot task played through a StreamInputTtsPlayback, rendered on this thread (the "audio callback"). */
static void play_locally(const char *ticket, const char *parameters, Counts &counts) {
    StreamInputTtsListener listener = {nullptr, on_data, nullptr, &counts, on_playback, nullptr};
    long loud = 0, calls = 0, before = counts.bytes.load();
    {
        nuisdk::StreamInputTtsPlayback playback;
        nuisdk::StreamInputTtsSdk sdk;
        check("attach_before_create", sdk.set_playback(&playback), NUI_ERR_MISSING_PARAMETER);
        check("barge_in_without_playback", sdk.enable_barge_in(true), NUI_ERR_INVALID_PARAMETER_VALUE);
        NuiTtsPlaybackConfig config = {};
        check("playback_create", playback.create(config), SUCCESS);
        check("playback_create_twice", playback.create(config), NUI_ERR_ALREADY_INITIALIZED);
        check("attach", sdk.set_playback(&playback), SUCCESS);
        check("play", sdk.play(ticket, parameters, "Played from C plus plus.", &listener), SUCCESS);
        int16_t buffer[160];
        timespec pause = {0, 2500 * 1000};
        while (counts.rearmed.load() == 0 && calls < 4000) { // 40 s of audio at most
            if (playback.render(buffer, 160) != SUCCESS) break;
            for (int i = 0; i < 160; i++) loud += buffer[i] != 0;
            calls++;
            nanosleep(&pause, nullptr);
        }
        NuiTtsPlaybackCounts totals;
        check("playback_counts", playback.get_counts(&totals), SUCCESS);
        check("rendered", totals.rendered_frames, calls * 160);
        check("detach", sdk.set_playback(nullptr), SUCCESS);
    } // the synthesizer is destroyed before the playback
    long samples = (counts.bytes.load() - before) / 2;
    check("playback_started", counts.started.load(), 1);
    check("playback_drained", counts.drained.load(), 1);
    check("played", loud > samples / 2 && loud <= samples, 1);
}

/* The joined loop's set-up (README "Using the C API"): a playback whose reference is the ASR SDK, made after
 * nui_set_params and attached; no dialog (NuiCTtsPlaybackTests runs one from C). */
static void joined(const char *url) {
    char init[512];
    std::snprintf(init, sizeof init, "{\"url\": \"%s\", \"apikey\": \"k\", \"device_id\": \"cpp\", \"service_mode\": \"1\", "
                  "\"audio_update_manually\": \"true\", \"workspace\": \"/tmp\"}", url);
    NuiSdkListener listener = {};
    nuisdk::NuiSdk nui;
    check("nui_initialize", nui.nui_initialize(init, &listener, nullptr, LOG_LEVEL_NONE, false), SUCCESS);
    NuiTtsPlaybackConfig config = {};
    config.echo_reference = NUI_TTS_REFERENCE_NUI;
    nuisdk::StreamInputTtsPlayback early;
    check("nui_reference_before_set_params", early.create(config), NUI_ERR_PARAMS_NOT_SET);
    check("nui_set_params", nui.nui_set_params("{\"service_type\": 4, \"enable_aec\": true, \"nls_config\": {\"model\": "
                                               "\"fun-asr-realtime\", \"sr_format\": \"opus\", \"sample_rate\": 16000}}"), SUCCESS);
    nuisdk::StreamInputTtsPlayback playback;
    check("nui_reference", playback.create(config), SUCCESS);
    nuisdk::StreamInputTtsSdk tts;
    check("nui_reference_attach", tts.set_playback(&playback), SUCCESS);
    check("nui_reference_barge_in", tts.enable_barge_in(true), SUCCESS); // kept until the synthesizer is made
    check("nui_reference_barge_in_off", tts.enable_barge_in(false), SUCCESS);
    check("nui_release", nui.nui_release(), SUCCESS);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char ticket[512];
    std::snprintf(ticket, sizeof ticket, "{\"url\": \"%s\", \"apikey\": \"k\", \"device_id\": \"cpp\"}", argv[1]);
    const char *parameters = "{\"model\": \"cosyvoice-v2\", \"voice\": \"espeak-en-us\", \"format\": \"pcm\", \"sample_rate\": 16000}";
    Counts counts;
    StreamInputTtsListener listener = {on_event, on_data, nullptr, &counts, nullptr, nullptr};
    StreamInputTtsListener other = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    {
        nuisdk::StreamInputTtsSdk sdk;
        check("send_before_start", sdk.send("x"), NUI_ERR_MISSING_PARAMETER);
        check("start", sdk.start(ticket, parameters, &listener), SUCCESS);
        check("send", sdk.send("Hello from C plus plus."), SUCCESS);
        check("stop", sdk.stop(), SUCCESS);
        check("other_listener", sdk.start(ticket, parameters, &other), NUI_ERR_INVALID_PARAMETER_VALUE);
        check("restart", sdk.start(ticket, parameters, &listener), SUCCESS);
        check("cancel", sdk.cancel(), SUCCESS);
    }
    check("complete", counts.complete.load(), 1);
    check("audio", counts.bytes.load() > 16000, 1);
    play_locally(ticket, parameters, counts);
    joined(argv[1]);
    std::printf("summary complete=%d bytes=%ld version=%d rearmed=%d\n", counts.complete.load(), counts.bytes.load(),
                nuisdk::StreamInputTtsSdk::get_version()[0] != 0, counts.rearmed.load());
    return failures == 0 ? 0 : 1;
}
