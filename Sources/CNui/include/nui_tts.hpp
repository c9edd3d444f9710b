/*
 * nui_tts.hpp — the stream-input TTS SDK's C++ class (`StreamInputTtsSdk`) over the C API of nui_tts.h,
 * header-only (C++11): start / play / send / stop / async_stop / cancel, and the listener struct with
 * event / data / log callbacks (StreamInputTtsListener). Link with libnui.so.
 *
 * Each object owns one synthesizer (a NuiTtsHandle), made at the first start or play with that call's listener;
 * later calls must pass the same listener (another one: NUI_ERR_INVALID_PARAMETER_VALUE). Before the first start
 * or play the other calls return NUI_ERR_MISSING_PARAMETER. The destructor cancels a running task; no callback
 * follows it. Threads and codes: as nui_tts.h.
 *
 * Local playback (an addition to the C++ SDK's shape): `StreamInputTtsPlayback` owns a NuiTtsPlayback (render or
 * sink shape, what it plays pushed as the AEC reference, e.g. of the ASR SDK: echo_reference
 * NUI_TTS_REFERENCE_NUI); `StreamInputTtsSdk::set_playback` attaches it (before the first start/play it is
 * attached when the synthesizer is made). Either object may be destroyed first.
 *
 *     NuiTtsPlaybackConfig config = {};                 // 16 kHz mono, render shape
 *     config.echo_reference = NUI_TTS_REFERENCE_NUI;    // after nui_set_params
 *     nuisdk::StreamInputTtsPlayback playback;
 *     playback.create(config);
 *     sdk.set_playback(&playback);
 *     sdk.enable_barge_in(true);                        // optional: the user talking over it stops it
 *     sdk.play(ticket, parameters, text, &listener);    // audio callback: playback.render(buffer, frames)
 */
#ifndef NUI_TTS_HPP
#define NUI_TTS_HPP

#include "nui_tts.h"

namespace nuisdk {

using ::NuiTtsEvent;
using ::NuiTtsPlaybackEvent;
using ::StreamInputTtsListener;
using ::NuiTtsInterruption;

/** Local playback: owns one NuiTtsPlayback (nui_tts.h, "Local playback"). */
class StreamInputTtsPlayback {
public:
    StreamInputTtsPlayback() : playback_(nullptr) {}
    ~StreamInputTtsPlayback() { nui_tts_playback_destroy(playback_); }
    StreamInputTtsPlayback(const StreamInputTtsPlayback &) = delete;
    StreamInputTtsPlayback &operator=(const StreamInputTtsPlayback &) = delete;

    /** Creates the playback (once; again: NUI_ERR_ALREADY_INITIALIZED). Codes: nui_tts_playback_create. */
    int create(const NuiTtsPlaybackConfig &config) {
        return playback_ != nullptr ? NUI_ERR_ALREADY_INITIALIZED : nui_tts_playback_create(&config, &playback_);
    }
    /** The render shape's entry: real-time safe, the device's audio callback only. */
    int render(int16_t *buffer, int count) { return nui_tts_playback_render(playback_, buffer, count); }
    /** Stops what plays within one buffer (barge-in). Any thread. */
    int stop() { return nui_tts_playback_stop(playback_); }
    int set_volume(float volume) { return nui_tts_playback_set_volume(playback_, volume); }
    int get_counts(NuiTtsPlaybackCounts *counts) { return nui_tts_playback_get_counts(playback_, counts); }
    NuiTtsPlayback *handle() const { return playback_; }

private:
    NuiTtsPlayback *playback_;
};

class StreamInputTtsSdk {
public:
    StreamInputTtsSdk() : handle_(nullptr), listener_(nullptr), playback_(nullptr), barge_in_(false) {}
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
    /** Attaches `playback` (nullptr detaches) from the next task on; kept until the first start or play when no
     *  synthesizer exists yet. Codes: nui_tts_set_playback. */
    int set_playback(StreamInputTtsPlayback *playback) {
        if (playback != nullptr && playback->handle() == nullptr) return NUI_ERR_MISSING_PARAMETER;
        if (handle_ == nullptr) {
            playback_ = playback;
            return SUCCESS;
        }
        int code = nui_tts_set_playback(handle_, playback != nullptr ? playback->handle() : nullptr);
        if (code == SUCCESS) playback_ = playback;
        return code;
    }
    /** Barge-in on the attached playback (its reference the ASR SDK): see nui_tts_enable_barge_in; the
     *  interruption reaches the listener's tts_interrupted_callback. Before the first start or play it is kept
     *  and applied when the synthesizer is made (after the playback). Codes: nui_tts_enable_barge_in. */
    int enable_barge_in(bool enabled) {
        if (handle_ == nullptr) {
            if (enabled && playback_ == nullptr) return NUI_ERR_INVALID_PARAMETER_VALUE;
            barge_in_ = enabled;
            return SUCCESS;
        }
        return nui_tts_enable_barge_in(handle_, enabled);
    }
    static const char *get_version() { return nui_tts_get_version(); }

private:
    int prepare(const StreamInputTtsListener *listener) {
        if (listener == nullptr) return NUI_ERR_MISSING_PARAMETER;
        if (handle_ != nullptr) return listener == listener_ ? SUCCESS : NUI_ERR_INVALID_PARAMETER_VALUE;
        handle_ = nui_tts_create(listener);
        listener_ = listener;
        if (handle_ == nullptr) return NUI_ERR_INTERNAL;
        int attached = playback_ != nullptr ? nui_tts_set_playback(handle_, playback_->handle()) : SUCCESS;
        return attached == SUCCESS && barge_in_ ? nui_tts_enable_barge_in(handle_, true) : attached;
    }
    NuiTtsHandle *handle_;
    const StreamInputTtsListener *listener_;
    StreamInputTtsPlayback *playback_;
    bool barge_in_;
};

}  // namespace nuisdk

#endif
