// The bare reference pipeline; see afe_reference_pipeline.h. Plain calls on speexdsp, webrtc-audio-processing
// 0.3 and libopus, with the settings the benchmark passes, and nothing of ours in between.
#include "afe_reference_pipeline.h"

#include <cstring>
#include <malloc.h>
#include <ctime>
#include <new>

#include <opus/opus.h>
#include <speex/speex_resampler.h>

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-parameter"
#pragma clang diagnostic ignored "-Wshadow"
#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>
#pragma clang diagnostic pop

struct afe_ref_pipeline {
    afe_ref_config config;
    SpeexResamplerState *mic_resampler;
    SpeexResamplerState *reference_resampler;
    webrtc::AudioProcessing *apm;
    webrtc::AudioFrame render;
    webrtc::AudioFrame capture;
    OpusEncoder *encoder;
    int32_t frame_length;            // processing samples per 10 ms
    int32_t packet_length;           // processing samples per Opus packet
    int32_t packet_fill;
    int16_t packet_samples[2880];
    unsigned char packet[1500];
};

namespace {

int64_t now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

int configure_apm(afe_ref_pipeline *p) {
    const afe_ref_config &c = p->config;
    webrtc::AudioProcessing *apm = p->apm;
    int rate = c.processing_rate;
    int err = apm->Initialize(rate, rate, rate, webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono,
                              webrtc::AudioProcessing::kMono);
    if (err != 0) return err;
    if (c.aec_suppression_level >= 0) {
        webrtc::EchoCancellation *aec = apm->echo_cancellation();
        if ((err = aec->set_suppression_level(
                 static_cast<webrtc::EchoCancellation::SuppressionLevel>(c.aec_suppression_level))) != 0) return err;
        if ((err = aec->enable_drift_compensation(false)) != 0) return err;
        if ((err = aec->enable_metrics(c.aec_metrics != 0)) != 0) return err;
        if ((err = aec->enable_delay_logging(c.aec_metrics != 0)) != 0) return err;
        if ((err = aec->Enable(true)) != 0) return err;
    }
    if (c.ns_level >= 0) {
        if ((err = apm->noise_suppression()->set_level(static_cast<webrtc::NoiseSuppression::Level>(c.ns_level))) != 0)
            return err;
        if ((err = apm->noise_suppression()->Enable(true)) != 0) return err;
    }
    if (c.vad_likelihood >= 0) {
        webrtc::VoiceDetection *vad = apm->voice_detection();
        if ((err = vad->set_likelihood(static_cast<webrtc::VoiceDetection::Likelihood>(c.vad_likelihood))) != 0)
            return err;
        if ((err = vad->set_frame_size_ms(10)) != 0) return err;
        if ((err = vad->Enable(true)) != 0) return err;
    }
    return 0;
}

SpeexResamplerState *make_resampler(int32_t from, int32_t to, int32_t quality, int32_t *error) {
    if (from == to) return nullptr;
    int err = 0;
    SpeexResamplerState *s = speex_resampler_init(1, static_cast<spx_uint32_t>(from), static_cast<spx_uint32_t>(to),
                                                  quality, &err);
    if (s == nullptr || err != 0) {
        if (s != nullptr) speex_resampler_destroy(s);
        *error = err != 0 ? -err : -1;
        return nullptr;
    }
    speex_resampler_skip_zeros(s);
    return s;
}

// Brings 10 ms at `rate` to the processing rate into `out` (frame_length samples).
void to_processing_rate(afe_ref_pipeline *p, SpeexResamplerState *s, const int16_t *in, int32_t rate, int16_t *out) {
    if (s == nullptr) {
        std::memcpy(out, in, sizeof(int16_t) * static_cast<size_t>(p->frame_length));
        return;
    }
    spx_uint32_t in_len = static_cast<spx_uint32_t>(rate / 100);
    spx_uint32_t out_len = static_cast<spx_uint32_t>(p->frame_length);
    speex_resampler_process_int(s, 0, in, &in_len, out, &out_len);
}

} // namespace

extern "C" {

afe_ref_pipeline *afe_ref_create(const afe_ref_config *config, int32_t *error) {
    *error = 0;
    afe_ref_pipeline *p = new (std::nothrow) afe_ref_pipeline();
    if (p == nullptr) {
        *error = -1;
        return nullptr;
    }
    p->config = *config;
    p->frame_length = config->processing_rate / 100;
    p->mic_resampler = make_resampler(config->mic_rate, config->processing_rate, config->resampler_quality, error);
    p->reference_resampler = make_resampler(config->reference_rate, config->processing_rate,
                                            config->resampler_quality, error);
    if (*error != 0) {
        afe_ref_destroy(p);
        return nullptr;
    }
    webrtc::Config extra;
    extra.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(config->aec_extended_filter != 0));
    extra.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(config->aec_delay_agnostic != 0));
    p->apm = webrtc::AudioProcessing::Create(extra);
    int err = p->apm == nullptr ? -1 : configure_apm(p);
    if (err != 0) {
        *error = err;
        afe_ref_destroy(p);
        return nullptr;
    }
    for (webrtc::AudioFrame *f : {&p->render, &p->capture}) {
        f->sample_rate_hz_ = config->processing_rate;
        f->samples_per_channel_ = static_cast<size_t>(p->frame_length);
        f->num_channels_ = 1;
    }
    if (config->opus_frame_ms > 0) {
        p->encoder = opus_encoder_create(config->processing_rate, 1, OPUS_APPLICATION_VOIP, &err);
        if (p->encoder == nullptr || err != OPUS_OK) {
            *error = err != 0 ? err : -1;
            afe_ref_destroy(p);
            return nullptr;
        }
        opus_encoder_ctl(p->encoder, OPUS_SET_BITRATE(config->opus_bitrate));
        opus_encoder_ctl(p->encoder, OPUS_SET_COMPLEXITY(config->opus_complexity));
        opus_encoder_ctl(p->encoder, OPUS_SET_VBR(config->opus_vbr));
        opus_encoder_ctl(p->encoder, OPUS_SET_VBR_CONSTRAINT(0));
        opus_encoder_ctl(p->encoder, OPUS_SET_DTX(0));
        opus_encoder_ctl(p->encoder, OPUS_SET_INBAND_FEC(0));
        opus_encoder_ctl(p->encoder, OPUS_SET_PACKET_LOSS_PERC(0));
        opus_encoder_ctl(p->encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
        p->packet_length = config->processing_rate / 1000 * config->opus_frame_ms;
    }
    return p;
}

void afe_ref_destroy(afe_ref_pipeline *p) {
    if (p == nullptr) return;
    if (p->mic_resampler != nullptr) speex_resampler_destroy(p->mic_resampler);
    if (p->reference_resampler != nullptr) speex_resampler_destroy(p->reference_resampler);
    delete p->apm;
    if (p->encoder != nullptr) opus_encoder_destroy(p->encoder);
    delete p;
}

int32_t afe_ref_process(afe_ref_pipeline *p, const int16_t *mic, const int16_t *reference,
                        afe_ref_stage_times *times) {
    int64_t t0 = times != nullptr ? now_ns() : 0;
    to_processing_rate(p, p->mic_resampler, mic, p->config.mic_rate, p->capture.data_);
    int64_t t1 = times != nullptr ? now_ns() : 0;
    to_processing_rate(p, p->reference_resampler, reference, p->config.reference_rate, p->render.data_);
    int64_t t2 = times != nullptr ? now_ns() : 0;
    int err = p->apm->ProcessReverseStream(&p->render);
    if (err != 0) return err;
    int64_t t3 = times != nullptr ? now_ns() : 0;
    if (p->config.aec_suppression_level >= 0) p->apm->set_stream_delay_ms(p->config.stream_delay_ms);
    err = p->apm->ProcessStream(&p->capture);
    if (err != 0 && err != webrtc::AudioProcessing::kBadStreamParameterWarning) return err;
    int64_t t4 = times != nullptr ? now_ns() : 0;
    int32_t bytes = 0;
    if (p->encoder != nullptr) {
        std::memcpy(p->packet_samples + p->packet_fill, p->capture.data_, sizeof(int16_t) * static_cast<size_t>(p->frame_length));
        p->packet_fill += p->frame_length;
        if (p->packet_fill == p->packet_length) {
            bytes = opus_encode(p->encoder, p->packet_samples, p->packet_length, p->packet, sizeof p->packet);
            p->packet_fill = 0;
        }
    }
    if (times != nullptr) {
        int64_t t5 = now_ns();
        times->resample_mic = t1 - t0;
        times->resample_reference = t2 - t1;
        times->apm_render = t3 - t2;
        times->apm_capture = t4 - t3;
        times->opus = bytes != 0 ? t5 - t4 : 0;
    }
    return bytes;
}

int32_t afe_ref_has_voice(const afe_ref_pipeline *p) {
    return p->config.vad_likelihood >= 0 && p->apm->voice_detection()->stream_has_voice() ? 1 : 0;
}

__attribute__((noinline)) void afe_bench_measured(void (*body)(void *), void *context) {
    body(context);
    __asm__ volatile("" ::: "memory");
}

void afe_bench_trim_heap(void) { malloc_trim(0); }

int64_t afe_bench_heap_bytes(void) {
    struct mallinfo2 m = mallinfo2();
    return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

} // extern "C"
