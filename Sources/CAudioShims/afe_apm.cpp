// C-ABI shim over webrtc::AudioProcessing (webrtc-audio-processing 0.3).
// Swift cannot use these C++ classes directly (pure virtual members, AudioFrame and webrtc::Config do not import),
// so this file owns the instance and two AudioFrames and exposes plain functions with integer status codes.
#include "afe_shims.h"

#include <cstring>
#include <new>

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-parameter"
#pragma clang diagnostic ignored "-Wshadow"
#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <webrtc/modules/interface/module_common_types.h>
#pragma clang diagnostic pop

struct afe_apm {
    webrtc::AudioProcessing *apm;
    webrtc::AudioFrame render;
    webrtc::AudioFrame capture;
    afe_apm_config config;
    int32_t frame_length;
    // SetExtraOptions arguments built at creation (a webrtc::Config allocates its entries), one per extended
    // filter setting, delay-agnostic as created: afe_apm_set_extended_filter switches between them without
    // allocating on the audio thread.
    webrtc::Config *extended_on = nullptr;
    webrtc::Config *extended_off = nullptr;
};

namespace {

bool is_native_rate(int32_t rate) {
    return rate == 8000 || rate == 16000 || rate == 32000 || rate == 48000;
}

void prepare(webrtc::AudioFrame &frame, int32_t rate, int32_t length) {
    frame.sample_rate_hz_ = rate;
    frame.samples_per_channel_ = static_cast<size_t>(length);
    frame.num_channels_ = 1;
}

int32_t configure(afe_apm *h) {
    webrtc::AudioProcessing *apm = h->apm;
    const afe_apm_config &c = h->config;
    int err = apm->Initialize(c.sample_rate_hz, c.sample_rate_hz, c.sample_rate_hz,
                              webrtc::AudioProcessing::kMono, webrtc::AudioProcessing::kMono,
                              webrtc::AudioProcessing::kMono);
    if (err != 0) return err;
    if ((err = apm->high_pass_filter()->Enable(c.high_pass_filter != 0)) != 0) return err;
    if (c.echo_mode == AFE_APM_ECHO_AEC2) {
        webrtc::EchoCancellation *aec = apm->echo_cancellation();
        if ((err = aec->set_suppression_level(
                 static_cast<webrtc::EchoCancellation::SuppressionLevel>(c.suppression_level))) != 0) return err;
        if ((err = aec->enable_drift_compensation(false)) != 0) return err;
        if ((err = aec->enable_metrics(c.metrics != 0)) != 0) return err;
        if ((err = aec->enable_delay_logging(c.metrics != 0)) != 0) return err;
        if ((err = aec->Enable(true)) != 0) return err;
    } else if (c.echo_mode == AFE_APM_ECHO_AECM) {
        webrtc::EchoControlMobile *aecm = apm->echo_control_mobile();
        if ((err = aecm->set_routing_mode(
                 static_cast<webrtc::EchoControlMobile::RoutingMode>(c.aecm_routing_mode))) != 0) return err;
        if ((err = aecm->enable_comfort_noise(c.aecm_comfort_noise != 0)) != 0) return err;
        if ((err = aecm->Enable(true)) != 0) return err;
    }
    if (c.noise_suppression >= 0) {
        webrtc::NoiseSuppression *ns = apm->noise_suppression();
        if ((err = ns->set_level(static_cast<webrtc::NoiseSuppression::Level>(c.noise_suppression))) != 0) return err;
        if ((err = ns->Enable(true)) != 0) return err;
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

} // namespace

extern "C" {

void afe_apm_config_init(afe_apm_config *c) {
    std::memset(c, 0, sizeof *c);
    c->sample_rate_hz = 16000;
    c->echo_mode = AFE_APM_ECHO_AEC2;
    c->suppression_level = 1;
    c->extended_filter = 1;
    c->delay_agnostic = 0;
    c->aecm_routing_mode = 3;
    c->aecm_comfort_noise = 0;
    c->noise_suppression = -1;
    c->vad_likelihood = -1;
    c->high_pass_filter = 0;
    c->metrics = 1;
}

afe_apm *afe_apm_create(const afe_apm_config *config, int32_t *error) {
    int32_t ignored = 0;
    if (error == nullptr) error = &ignored;
    *error = AFE_APM_OK;
    if (config == nullptr || !is_native_rate(config->sample_rate_hz)) {
        *error = AFE_APM_ERROR_BAD_RATE;
        return nullptr;
    }
    try {
        afe_apm *h = new (std::nothrow) afe_apm();
        if (h == nullptr) {
            *error = AFE_APM_ERROR_NO_MEMORY;
            return nullptr;
        }
        h->config = *config;
        h->frame_length = config->sample_rate_hz / 100;
        webrtc::Config extra;
        extra.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(config->extended_filter != 0));
        extra.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(config->delay_agnostic != 0));
        h->apm = webrtc::AudioProcessing::Create(extra);
        h->extended_on = new (std::nothrow) webrtc::Config();
        h->extended_off = new (std::nothrow) webrtc::Config();
        if (h->extended_on == nullptr || h->extended_off == nullptr) {
            delete h->extended_on;
            delete h->extended_off;
            delete h->apm;
            delete h;
            *error = AFE_APM_ERROR_NO_MEMORY;
            return nullptr;
        }
        h->extended_on->Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
        h->extended_on->Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(config->delay_agnostic != 0));
        h->extended_off->Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(false));
        h->extended_off->Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(config->delay_agnostic != 0));
        if (h->apm == nullptr) {
            delete h->extended_on;
            delete h->extended_off;
            delete h;
            *error = AFE_APM_ERROR_NO_MEMORY;
            return nullptr;
        }
        int32_t err = configure(h);
        if (err != 0) {
            delete h->apm;
            delete h->extended_on;
            delete h->extended_off;
            delete h;
            *error = err;
            return nullptr;
        }
        // The same options again: any lazily created default a Config lookup makes is made here, not on the
        // first switch on the audio thread.
        h->apm->SetExtraOptions(config->extended_filter != 0 ? *h->extended_on : *h->extended_off);
        prepare(h->render, config->sample_rate_hz, h->frame_length);
        prepare(h->capture, config->sample_rate_hz, h->frame_length);
        return h;
    } catch (...) {
        *error = AFE_APM_ERROR_EXCEPTION;
        return nullptr;
    }
}

void afe_apm_destroy(afe_apm *h) {
    if (h == nullptr) return;
    delete h->apm;
    delete h->extended_on;
    delete h->extended_off;
    delete h;
}

int32_t afe_apm_frame_length(const afe_apm *h) { return h->frame_length; }

int32_t afe_apm_process_render(afe_apm *h, const int16_t *samples, int32_t count) {
    if (count != h->frame_length) return AFE_APM_ERROR_BAD_LENGTH;
    try {
        prepare(h->render, h->config.sample_rate_hz, count);
        std::memcpy(h->render.data_, samples, sizeof(int16_t) * static_cast<size_t>(count));
        return h->apm->ProcessReverseStream(&h->render);
    } catch (...) {
        return AFE_APM_ERROR_EXCEPTION;
    }
}

int32_t afe_apm_process_capture(afe_apm *h, int16_t *samples, int32_t count, int32_t stream_delay_ms) {
    if (count != h->frame_length) return AFE_APM_ERROR_BAD_LENGTH;
    try {
        prepare(h->capture, h->config.sample_rate_hz, count);
        std::memcpy(h->capture.data_, samples, sizeof(int16_t) * static_cast<size_t>(count));
        if (h->config.echo_mode != AFE_APM_ECHO_OFF) {
            // Clamped by the library to 0...500 ms; a clamp is reported as a warning, not an error.
            h->apm->set_stream_delay_ms(stream_delay_ms);
        }
        int32_t err = h->apm->ProcessStream(&h->capture);
        std::memcpy(samples, h->capture.data_, sizeof(int16_t) * static_cast<size_t>(count));
        return err;
    } catch (...) {
        return AFE_APM_ERROR_EXCEPTION;
    }
}

int32_t afe_apm_stream_has_voice(const afe_apm *h) {
    return h->config.vad_likelihood >= 0 && h->apm->voice_detection()->stream_has_voice() ? 1 : 0;
}

float afe_apm_speech_probability(const afe_apm *h) {
    return h->config.noise_suppression >= 0 ? h->apm->noise_suppression()->speech_probability() : 0.0f;
}

static void copy_statistic(afe_apm_statistic &to, const webrtc::AudioProcessing::Statistic &from) {
    to.instant = from.instant;
    to.average = from.average;
    to.maximum = from.maximum;
    to.minimum = from.minimum;
}

void afe_apm_get_metrics(afe_apm *h, afe_apm_metrics *m) {
    std::memset(m, 0, sizeof *m);
    if (h->config.echo_mode != AFE_APM_ECHO_AEC2) {
        m->status = m->delay_status = webrtc::AudioProcessing::kNotEnabledError;
        return;
    }
    try {
        webrtc::EchoCancellation *aec = h->apm->echo_cancellation();
        webrtc::EchoCancellation::Metrics metrics;
        m->status = aec->GetMetrics(&metrics);
        if (m->status == 0) {
            copy_statistic(m->echo_return_loss, metrics.echo_return_loss);
            copy_statistic(m->echo_return_loss_enhancement, metrics.echo_return_loss_enhancement);
            copy_statistic(m->residual_echo_return_loss, metrics.residual_echo_return_loss);
            copy_statistic(m->a_nlp, metrics.a_nlp);
        }
        int median = 0, std_dev = 0;
        float poor = 0;
        m->delay_status = aec->GetDelayMetrics(&median, &std_dev, &poor);
        m->delay_median_ms = median;
        m->delay_std_ms = std_dev;
        m->fraction_poor_delays = poor;
        m->stream_has_echo = aec->stream_has_echo() ? 1 : 0;
    } catch (...) {
        m->status = m->delay_status = AFE_APM_ERROR_EXCEPTION;
    }
}

int32_t afe_apm_set_suppression_level(afe_apm *h, int32_t level) {
    if (h->config.echo_mode != AFE_APM_ECHO_AEC2 || level < 0 || level > 2) return webrtc::AudioProcessing::kBadParameterError;
    try {
        return h->apm->echo_cancellation()->set_suppression_level(
            static_cast<webrtc::EchoCancellation::SuppressionLevel>(level));
    } catch (...) {
        return AFE_APM_ERROR_EXCEPTION;
    }
}

int32_t afe_apm_set_extended_filter(afe_apm *h, int32_t enabled) {
    if (h->config.echo_mode != AFE_APM_ECHO_AEC2 || enabled < 0 || enabled > 1) return webrtc::AudioProcessing::kBadParameterError;
    try {
        h->apm->SetExtraOptions(enabled ? *h->extended_on : *h->extended_off);
        h->config.extended_filter = enabled;
        return 0;
    } catch (...) {
        return AFE_APM_ERROR_EXCEPTION;
    }
}

int32_t afe_apm_reset(afe_apm *h) {
    try {
        return configure(h);
    } catch (...) {
        return AFE_APM_ERROR_EXCEPTION;
    }
}

} // extern "C"
