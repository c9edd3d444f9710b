/*
 * nui.hpp — the NUI C++ SDK's class interface (`NuiSdk`) over the C API of nui.h, header-only (C++11).
 *
 * An app written against the NUI C++ SDK (`nuisdk.h`: `NuiSdk nui; nui.nui_initialize(params, &listener,
 * nullptr, LOG_LEVEL_INFO, false); ...`) compiles against this header with the same calls, default arguments and
 * listener struct. Link with libnui.so as for C. `NuiSdk` objects hold no state: every object drives the one SDK
 * instance, as the NUI SDK is a singleton.
 *
 * `NuiAsyncCallback`: the calls here are synchronous. When an async listener is given, its `async_callback` is
 * called with the result code on the calling thread before the call returns, and the call returns the same code.
 */
#ifndef NUI_HPP
#define NUI_HPP

#include "nui.h"

namespace nuisdk {

using ::NuiAudioExtraEvent;
using ::NuiAudioState;
using ::NuiCallbackEvent;
using ::NuiResultCode;
using ::NuiSdkListener;
using ::NuiSdkLogLevel;
using ::NuiVadMode;

/** Called with the result of a call made with an async listener; `ex_info` is "". */
typedef void (*FuncAsyncCallback)(void *user_data, int result, const char *ex_info);

/** The async listener of the NUI C++ SDK. */
struct NuiAsyncCallback {
    FuncAsyncCallback async_callback;
    void *user_data;
};

/** The NUI C++ SDK's entry point. Threads and real-time safety as documented in nui.h. */
class NuiSdk {
public:
    NuiResultCode nui_initialize(const char *parameters, const NuiSdkListener *listener,
                                 const NuiAsyncCallback *async_listener = nullptr,
                                 NuiSdkLogLevel level = LOG_LEVEL_VERBOSE, bool save_log = false) {
        return report(async_listener, ::nui_initialize(parameters, listener, level, save_log));
    }

    NuiResultCode nui_release(const NuiAsyncCallback *async_listener = nullptr) {
        return report(async_listener, ::nui_release());
    }

    NuiResultCode nui_set_params(const char *params, const NuiAsyncCallback *async_listener = nullptr) {
        return report(async_listener, ::nui_set_params(params));
    }

    NuiResultCode nui_dialog_start(NuiVadMode vad_mode, const char *dialog_params,
                                   const NuiAsyncCallback *async_listener = nullptr) {
        return report(async_listener, ::nui_dialog_start(vad_mode, dialog_params));
    }

    NuiResultCode nui_dialog_cancel(bool force, const NuiAsyncCallback *async_listener = nullptr) {
        return report(async_listener, ::nui_dialog_cancel(force));
    }

    NuiResultCode nui_dialog_action(const char *action_params, const NuiAsyncCallback *async_listener = nullptr) {
        return report(async_listener, ::nui_dialog_action(action_params));
    }

    /** Real-time safe. */
    int nui_update_audio_data(const char *data, int len_in_byte, bool first_pack = false) {
        return ::nui_update_audio_data(data, len_in_byte, first_pack);
    }

    /** Real-time safe. */
    int nui_push_reference_data(const char *data, int len_in_byte, bool first_pack = false) {
        return ::nui_push_reference_data(data, len_in_byte, first_pack);
    }

    /** The SDK version; `module` (wake-word engine or model in the NUI SDK) is ignored. */
    const char *nui_get_version(const char *module = nullptr) {
        (void)module;
        return ::nui_get_version();
    }

    const char *nui_get_all_response() { return ::nui_get_all_response(); }

private:
    static NuiResultCode report(const NuiAsyncCallback *async_listener, NuiResultCode result) {
        if (async_listener != nullptr && async_listener->async_callback != nullptr)
            async_listener->async_callback(async_listener->user_data, result, "");
        return result;
    }
};

} // namespace nuisdk

#endif /* NUI_HPP */
