// The bare reference pipeline the benchmark measures ours against: the libraries called directly, nothing else.
// mic and reference (int16 mono) → two speex resamplers → one webrtc::AudioProcessing (AEC2 + NS + VAD) →
// Opus. Every symbol carries the prefix `afe_ref_` (or `afe_bench_`). The file is C++ only because
// webrtc-audio-processing 0.3 is a C++ API; the code is written as plain C calls on the libraries.
#ifndef AFE_REFERENCE_PIPELINE_H
#define AFE_REFERENCE_PIPELINE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The settings, chosen by the benchmark to equal our pipeline's reference configuration.
typedef struct afe_ref_config {
    int32_t mic_rate;                // Hz, e.g. 48000
    int32_t reference_rate;          // Hz, e.g. 48000
    int32_t processing_rate;         // Hz, 16000 or 48000 (APM native)
    int32_t resampler_quality;       // speex 0...10
    int32_t aec_suppression_level;   // -1 off, 0 low, 1 moderate, 2 high
    int32_t aec_extended_filter;     // 0/1
    int32_t aec_delay_agnostic;      // 0/1
    int32_t aec_metrics;             // 0/1: enable_metrics and enable_delay_logging
    int32_t stream_delay_ms;         // passed to set_stream_delay_ms every frame
    int32_t ns_level;                // -1 off, 0...3
    int32_t vad_likelihood;          // -1 off, 0...3
    int32_t opus_bitrate;            // bits per second
    int32_t opus_complexity;         // 0...10
    int32_t opus_vbr;                // 0/1
    int32_t opus_frame_ms;           // 10, 20, 40 or 60; 0 turns encoding off
} afe_ref_config;

/// Wall-clock nanoseconds spent in each stage of the last afe_ref_process call.
typedef struct afe_ref_stage_times {
    int64_t resample_mic;
    int64_t resample_reference;
    int64_t apm_render;
    int64_t apm_capture;
    int64_t opus;                    // 0 on frames that complete no packet
} afe_ref_stage_times;

typedef struct afe_ref_pipeline afe_ref_pipeline;

/// Creates every stage. Returns NULL and sets *error (negative, the failing library's status) on failure.
afe_ref_pipeline *afe_ref_create(const afe_ref_config *config, int32_t *error);
void afe_ref_destroy(afe_ref_pipeline *pipeline);

/// Processes 10 ms: mic_rate/100 mic samples and reference_rate/100 reference samples. When `times` is not
/// NULL each stage is timed. Returns the bytes of the Opus packet completed by this frame (0 when none), or
/// a negative status. No allocation.
int32_t afe_ref_process(afe_ref_pipeline *pipeline, const int16_t *mic, const int16_t *reference,
                        afe_ref_stage_times *times);

/// 1 when the VAD said the last frame held voice.
int32_t afe_ref_has_voice(const afe_ref_pipeline *pipeline);

/// Calls body(context). Never inlined: callgrind counts only inside it (--toggle-collect=afe_bench_measured).
void afe_bench_measured(void (*body)(void *context), void *context);

/// malloc_trim(0): hands freed heap pages back, so resident-set growth counts live memory only.
void afe_bench_trim_heap(void);

/// Heap bytes in use (mallinfo2: uordblks + hblkhd), touched or not.
int64_t afe_bench_heap_bytes(void);

#ifdef __cplusplus
}
#endif

#endif
