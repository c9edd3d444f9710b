// nui_cpp_smoke.cpp — NUI C++ SDK code (class NuiSdk, default arguments, async listener) against nui.hpp.
//
//   nui_cpp_smoke URL
//
// Initializes (no connection is made before a dialog), sets parameters, checks the calls in the wrong state and
// with NULL, releases, and checks that STATE_CLOSE arrived before nui_release returned. Prints `check` lines;
// exit status 0 when all passed. Built and run by Tests/NuiCTests.
#include "nui.hpp"

#include <atomic>
#include <cstdio>
#include <string>

using namespace nuisdk;

namespace {
int failures = 0;

void check(const char *name, int got, int want) {
    if (got != want) failures++;
    std::printf("check %s got=%d want=%d %s\n", name, got, want, got == want ? "ok" : "FAIL");
}

struct App {
    std::atomic<int> closes{0};
    std::atomic<int> async_results{0};
    std::atomic<int> last_async{-1};
};

void on_state(void *user, NuiAudioState state) {
    if (state == STATE_CLOSE) static_cast<App *>(user)->closes++;
}

void on_async(void *user, int result, const char *) {
    App *app = static_cast<App *>(user);
    app->async_results++;
    app->last_async = result;
}
} // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s URL\n", argv[0]);
        return 2;
    }
    App app;
    NuiSdkListener listener{};
    listener.audio_state_changed_callback = on_state;
    listener.user_data = &app;
    NuiAsyncCallback async{on_async, &app};
    std::string params = std::string("{\"url\":\"") + argv[1] +
                         "\",\"apikey\":\"k\",\"device_id\":\"cpp\",\"service_mode\":\"1\","
                         "\"audio_update_manually\":\"true\",\"workspace\":\"/tmp\"}";
    NuiSdk nui;
    check("initialize without listener", nui.nui_initialize(params.c_str(), nullptr), NULL_LISTENER_ERROR);
    check("initialize", nui.nui_initialize(params.c_str(), &listener, &async, LOG_LEVEL_WARNING, false), SUCCESS);
    check("async listener called", app.async_results.load(), 1);
    check("async listener result", app.last_async.load(), SUCCESS);
    check("version", std::string(nui.nui_get_version()).empty() ? -1 : 0, 0);
    check("dialog_start before set_params", nui.nui_dialog_start(MODE_P2T, ""), NUI_ERR_PARAMS_NOT_SET);
    check("set_params", nui.nui_set_params("{\"service_type\":4,\"nls_config\":{\"model\":\"fun-asr-realtime\","
                                           "\"sr_format\":\"pcm\",\"sample_rate\":16000}}", &async), SUCCESS);
    check("async listener called again", app.async_results.load(), 2);
    check("update_audio_data without dialog", nui.nui_update_audio_data("\0\0", 2), NUI_ERR_NO_DIALOG);
    check("dialog_cancel without dialog", nui.nui_dialog_cancel(true), NUI_ERR_NO_DIALOG);
    check("release", nui.nui_release(), SUCCESS);
    check("STATE_CLOSE before release returned", app.closes.load(), 1);
    check("release twice", nui.nui_release(&async), SDK_NOT_INIT); // the NUI C++ SDK's name
    check("async listener got the error", app.last_async.load(), NUI_ERR_NOT_INITIALIZED);
    return failures == 0 ? 0 : 1;
}
