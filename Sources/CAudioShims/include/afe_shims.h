// C-ABI shims for what Swift cannot call directly:
//  - the C++ classes of webrtc-audio-processing 0.3 (afe_apm_*), behind an opaque handle;
//  - the variadic opus_encoder_ctl / opus_decoder_ctl and their request macros (afe_opus_*).
// Every symbol defined here carries the prefix `afe_`. No C++ exception crosses this boundary.
#ifndef AFE_SHIMS_H
#define AFE_SHIMS_H

#include <stdint.h>
#include <opus/opus.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: - WebRTC audio processing (AudioProcessing from webrtc-audio-processing 0.3)

typedef struct afe_apm afe_apm;

enum {
    AFE_APM_ECHO_OFF = 0,
    AFE_APM_ECHO_AEC2 = 1,   // EchoCancellation (AEC2)
    AFE_APM_ECHO_AECM = 2,   // EchoControlMobile (AECM), 16 kHz and below
};

enum {
    AFE_APM_OK = 0,
    AFE_APM_ERROR_NO_MEMORY = -1000,
    AFE_APM_ERROR_BAD_RATE = -1001,
    AFE_APM_ERROR_BAD_LENGTH = -1002,
    AFE_APM_ERROR_EXCEPTION = -1003,
};

/// Plain configuration. Fill with afe_apm_config_init, then change fields.
typedef struct afe_apm_config {
    int32_t sample_rate_hz;       // 8000, 16000, 32000 or 48000
    int32_t echo_mode;            // AFE_APM_ECHO_*
    int32_t suppression_level;    // AEC2: 0 low, 1 moderate, 2 high
    int32_t extended_filter;      // AEC2: 0/1 (48 -> 128 ms filter)
    int32_t delay_agnostic;       // AEC2: 0/1 (internal delay estimate)
    int32_t aecm_routing_mode;    // AECM: 0 quiet earpiece .. 4 loud speakerphone
    int32_t aecm_comfort_noise;   // AECM: 0/1
    int32_t noise_suppression;    // -1 off, 0 low, 1 moderate, 2 high, 3 very high
    int32_t vad_likelihood;       // -1 off, 0 very low .. 3 high
    int32_t high_pass_filter;     // 0/1
    int32_t metrics;              // AEC2: enable metrics and delay logging, 0/1
} afe_apm_config;

typedef struct afe_apm_statistic {
    int32_t instant;
    int32_t average;
    int32_t maximum;
    int32_t minimum;
} afe_apm_statistic;

typedef struct afe_apm_metrics {
    int32_t status;               // GetMetrics return code (0 ok)
    afe_apm_statistic echo_return_loss;
    afe_apm_statistic echo_return_loss_enhancement;
    afe_apm_statistic residual_echo_return_loss;
    afe_apm_statistic a_nlp;
    int32_t delay_status;         // GetDelayMetrics return code (0 ok)
    int32_t delay_median_ms;
    int32_t delay_std_ms;
    float fraction_poor_delays;
    int32_t stream_has_echo;
} afe_apm_metrics;

void afe_apm_config_init(afe_apm_config *config);

/// Creates and configures an instance. Returns NULL and sets *error on failure. Allocates.
afe_apm *afe_apm_create(const afe_apm_config *config, int32_t *error);
void afe_apm_destroy(afe_apm *apm);

/// Samples per 10 ms frame at the configured rate.
int32_t afe_apm_frame_length(const afe_apm *apm);

/// Render (far end, reference) side: ProcessReverseStream on one 10 ms frame. Real-time safe.
int32_t afe_apm_process_render(afe_apm *apm, const int16_t *samples, int32_t count);

/// Capture (near end, mic) side: set_stream_delay_ms then ProcessStream, in place. Real-time safe.
int32_t afe_apm_process_capture(afe_apm *apm, int16_t *samples, int32_t count, int32_t stream_delay_ms);

/// After afe_apm_process_capture: 1 if the VAD says the frame has voice, else 0.
int32_t afe_apm_stream_has_voice(const afe_apm *apm);
/// After afe_apm_process_capture: the noise suppressor's speech probability (0..1).
float afe_apm_speech_probability(const afe_apm *apm);

/// GetMetrics, GetDelayMetrics, stream_has_echo. Real-time safe.
void afe_apm_get_metrics(afe_apm *apm, afe_apm_metrics *metrics);

/// Initialize(): clears the stream state, keeps the settings.
int32_t afe_apm_reset(afe_apm *apm);

/// AEC2's suppression level (0 low, 1 moderate, 2 high), from the next capture frame on, keeping the filter and
/// the rest of the stream state (EchoCancellation::set_suppression_level: WebRTC's own lock, as every
/// ProcessStream takes it, and WebRtcAec_set_config on the existing handles; no allocation). Returns the
/// library's status; -6 (kBadParameterError) without AEC2 or for another level.
int32_t afe_apm_set_suppression_level(afe_apm *apm, int32_t level);

/// AEC2's extended filter (1: 128 ms / 32 partitions, 0: 48 ms / 12), from the next capture frame on, keeping the
/// filter weights and the rest of the stream state (AudioProcessing::SetExtraOptions with a Config built at
/// creation: EchoCancellationImpl re-applies WebRtcAec_enable_extended_filter, which changes the partition count
/// and the NLP's extended-mode constants, and WebRtcAec_set_config on the existing handles; WebRTC's own lock, no
/// allocation). The partitions beyond 12 keep the weights they had when last used. Delay-agnostic mode stays as
/// created. Returns 0, or -6 (kBadParameterError) without AEC2 or for another value.
int32_t afe_apm_set_extended_filter(afe_apm *apm, int32_t enabled);

// MARK: - ThreadSanitizer annotations

// Synchronization.Mutex takes a contended lock in the Swift runtime's uninstrumented slow path (a futex), so
// ThreadSanitizer does not see that acquire and reports the accesses it guards as races. These tell it: they call
// the sanitizer's own __tsan_acquire / __tsan_release when its runtime is linked (a -sanitize=thread build) and do
// nothing otherwise (weak references, null without it). Linux only: Darwin's linker refuses an undefined weak
// symbol that no linked library defines, and the sanitizer there is Xcode's business; there they are no-ops.
#if defined(__linux__)
void __tsan_acquire(void *addr) __attribute__((weak));
void __tsan_release(void *addr) __attribute__((weak));
static inline void afe_tsan_acquire(const void *addr) { if (__tsan_acquire) __tsan_acquire((void *)addr); }
static inline void afe_tsan_release(const void *addr) { if (__tsan_release) __tsan_release((void *)addr); }
#else
static inline void afe_tsan_acquire(const void *addr) { (void)addr; }
static inline void afe_tsan_release(const void *addr) { (void)addr; }
#endif

// MARK: - Opus ctls (opus_encoder_ctl is variadic; its request macros are function-like)

static inline int afe_opus_set_bitrate(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_BITRATE(v)); }
static inline int afe_opus_set_complexity(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(v)); }
static inline int afe_opus_set_vbr(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_VBR(v)); }
static inline int afe_opus_set_vbr_constraint(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_VBR_CONSTRAINT(v)); }
static inline int afe_opus_set_dtx(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_DTX(v)); }
static inline int afe_opus_set_inband_fec(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(v)); }
static inline int afe_opus_set_packet_loss_perc(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(v)); }
static inline int afe_opus_set_signal(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_SIGNAL(v)); }
static inline int afe_opus_set_bandwidth(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_BANDWIDTH(v)); }
static inline int afe_opus_set_max_bandwidth(OpusEncoder *e, int32_t v) { return opus_encoder_ctl(e, OPUS_SET_MAX_BANDWIDTH(v)); }
static inline int afe_opus_get_lookahead(OpusEncoder *e, int32_t *v) { return opus_encoder_ctl(e, OPUS_GET_LOOKAHEAD(v)); }
static inline int afe_opus_get_bitrate(OpusEncoder *e, int32_t *v) { return opus_encoder_ctl(e, OPUS_GET_BITRATE(v)); }
static inline int afe_opus_get_final_range(OpusEncoder *e, uint32_t *v) { return opus_encoder_ctl(e, OPUS_GET_FINAL_RANGE(v)); }
static inline int afe_opus_get_in_dtx(OpusEncoder *e, int32_t *v) { return opus_encoder_ctl(e, OPUS_GET_IN_DTX(v)); }
static inline int afe_opus_encoder_reset(OpusEncoder *e) { return opus_encoder_ctl(e, OPUS_RESET_STATE); }
static inline int afe_opus_decoder_reset(OpusDecoder *d) { return opus_decoder_ctl(d, OPUS_RESET_STATE); }
static inline int afe_opus_decoder_get_final_range(OpusDecoder *d, uint32_t *v) { return opus_decoder_ctl(d, OPUS_GET_FINAL_RANGE(v)); }
static inline int afe_opus_decoder_get_last_packet_duration(OpusDecoder *d, int32_t *v) { return opus_decoder_ctl(d, OPUS_GET_LAST_PACKET_DURATION(v)); }

#ifdef __cplusplus
}
#endif

#endif
