// nui_tts_cpp_smoke.cpp — C++ over nui_tts.hpp: StreamInputTtsSdk start / send / stop against the reference
// server (argv[1]), the codes of calls before start and with another listener. Prints check lines and a summary.
#include <atomic>
#include <cstdio>
#include "nui_tts.hpp"

static int failures = 0;
static void check(const char *name, long got, long want) {
    std::printf("check %s got=%ld want=%ld %s\n", name, got, want, got == want ? "ok" : "FAIL");
    if (got != want) failures++;
}

struct Counts {
    std::atomic<int> complete{0};
    std::atomic<long> bytes{0};
};

static void on_event(void *user_data, NuiTtsEvent event, const char *, const char *, int, const char *, const char *,
                     const char *) {
    if (event == TTS_EVENT_SYNTHESIS_COMPLETE) static_cast<Counts *>(user_data)->complete++;
}
static void on_data(void *user_data, const char *, int len) { static_cast<Counts *>(user_data)->bytes += len; }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    char ticket[512];
    std::snprintf(ticket, sizeof ticket, "{\"url\": \"%s\", \"apikey\": \"k\", \"device_id\": \"cpp\"}", argv[1]);
    const char *parameters = "{\"model\": \"cosyvoice-v2\", \"voice\": \"espeak-en-us\", \"format\": \"pcm\", \"sample_rate\": 16000}";
    Counts counts;
    StreamInputTtsListener listener = {on_event, on_data, nullptr, &counts};
    StreamInputTtsListener other = {nullptr, nullptr, nullptr, nullptr};
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
    std::printf("summary complete=%d bytes=%ld version=%d\n", counts.complete.load(), counts.bytes.load(),
                nuisdk::StreamInputTtsSdk::get_version()[0] != 0);
    return failures == 0 ? 0 : 1;
}
