/*
 * nui_tts.hpp — the stream-input TTS SDK's C++ class (`StreamInputTtsSdk`) over the C API of nui_tts.h,
 * header-only (C++11): start / play / send / stop / async_stop / cancel, and the listener struct with
 * event / data / log callbacks (StreamInputTtsListener). Link with libnui.so.
 *
 * Each object owns one synthesizer (a NuiTtsHandle), made at the first start or play with that call's listener;
 * later calls must pass the same listener (another one: NUI_ERR_INVALID_PARAMETER_VALUE). Before the first start
 * or play the other calls return NUI_ERR_MISSING_PARAMETER. The destructor cancels a running task; no callback
 * follows it. Threads and codes: as nui_tts.h.
 */
#ifndef NUI_TTS_HPP
#define NUI_TTS_HPP

#include "nui_tts.h"

namespace nuisdk {

using ::NuiTtsEvent;
using ::StreamInputTtsListener;

class StreamInputTtsSdk {
public:
    StreamInputTtsSdk() : handle_(nullptr), listener_(nullptr) {}
    ~StreamInputTtsSdk() { nui_tts_destroy(handle_); }
    StreamInputTtsSdk(const StreamInputTtsSdk &) = delete;
    StreamInputTtsSdk &operator=(const StreamInputTtsSdk &) = delete;

    /** Starts a task; text follows with send. */
    int start(const char *ticket, const char *parameters, const StreamInputTtsListener *listener,
              const char *session_id = nullptr, int log_level = 2, bool save_log = false) {
        int prepared = prepare(listener);
        return prepared != SUCCESS ? prepared : nui_tts_start(handle_, ticket, parameters, session_id, log_level, save_log);
    }
    /** One-shot synthesis of `text` (returns at once; the callbacks deliver everything). */
    int play(const char *ticket, const char *parameters, const char *text, const StreamInputTtsListener *listener,
             const char *session_id = nullptr, int log_level = 2, bool save_log = false) {
        int prepared = prepare(listener);
        return prepared != SUCCESS ? prepared : nui_tts_play(handle_, ticket, parameters, text, session_id, log_level, save_log);
    }
    int send(const char *text) { return nui_tts_send(handle_, text); }
    /** Blocks until synthesis completes (at most complete_waiting_ms). */
    int stop() { return nui_tts_stop(handle_); }
    int async_stop() { return nui_tts_async_stop(handle_); }
    int cancel() { return nui_tts_cancel(handle_); }
    static const char *get_version() { return nui_tts_get_version(); }

private:
    int prepare(const StreamInputTtsListener *listener) {
        if (listener == nullptr) return NUI_ERR_MISSING_PARAMETER;
        if (handle_ != nullptr) return listener == listener_ ? SUCCESS : NUI_ERR_INVALID_PARAMETER_VALUE;
        handle_ = nui_tts_create(listener);
        listener_ = listener;
        return handle_ != nullptr ? SUCCESS : NUI_ERR_INTERNAL;
    }
    NuiTtsHandle *handle_;
    const StreamInputTtsListener *listener_;
};

}  // namespace nuisdk

#endif
