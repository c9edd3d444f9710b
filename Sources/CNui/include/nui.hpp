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

/** The NUI C++ SDK's result-code names (its nui_code.h), as aliases of ours where one has the same meaning, so
 *  ported code that tests for them compiles. The numbers are ours (nui_code.h), not the NUI SDK's. */
const int DEFAULT_ERROR = NUI_ERR_INTERNAL;
const int ILLEGAL_PARAM = NUI_ERR_INVALID_PARAMETER_VALUE;
const int ILLEGAL_INIT_PARAM = NUI_ERR_INVALID_PARAMETER_VALUE;
const int NECESSARY_PARAM_LACK = NUI_ERR_MISSING_PARAMETER;
const int NULL_PARAM_ERROR = NUI_ERR_INVALID_JSON;
const int NULL_LISTENER_ERROR = NUI_ERR_MISSING_PARAMETER;
const int NULL_DIALOG_ERROR = NUI_ERR_NO_DIALOG;
const int ILLEGAL_DATA = NUI_ERR_INVALID_AUDIO_DATA;
const int SDK_NOT_INIT = NUI_ERR_NOT_INITIALIZED;
const int SDK_ALREADY_INIT = NUI_ERR_ALREADY_INITIALIZED;
const int DIALOG_INVALID_STATE = NUI_ERR_DIALOG_RUNNING;
const int ILLEGAL_FUNC_CALL = NUI_ERR_MANUAL_AUDIO_DISABLED;
const int UPDATE_AUDIO_ERROR = NUI_ERR_AUDIO_BUFFER_FULL;
const int MIC_ERROR = NUI_ERR_MIC_NO_DATA;
const int DEFAULT_NLS_ERROR = NUI_ERR_CONNECTION_FAILED;
const int SSL_CONNECT_FAILED = NUI_ERR_TLS;
const int DNS_FAILED = NUI_ERR_UNKNOWN_HOST;
const int CONNECT_FAILED = NUI_ERR_CONNECTION_REFUSED;
const int SOCKET_CLOSED = NUI_ERR_CONNECTION_CLOSED;
const int AUTH_FAILED = NUI_ERR_UNAUTHORIZED;
const int CONNECTION_TIMEOUT = NUI_ERR_CONNECT_TIMEOUT;
const int ASR_TIMEOUT = NUI_ERR_FINISH_TIMEOUT;

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
