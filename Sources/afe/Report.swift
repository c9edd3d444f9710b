import AudioFrontEnd
import Foundation

/// What `afe process` tells: on the terminal as text, and as JSON with --report.
struct Report {
    let options: ProcessOptions
    let mic: AudioFile
    let reference: AudioFile?
    let summary: FrontEndSummary
    /// Samples written to the output file (the mic's length at the output rate).
    let outputSamples: Int
    let collector: Collector
    let wallSeconds: Double
    let cpuSeconds: Double

    private var finalDelay: Double? { collector.telemetry.last(where: { $0.delayMilliseconds != nil })?.delayMilliseconds }
    private var medianERLE: Double? {
        let values = collector.telemetry.compactMap(\.erleDecibels).sorted()
        return values.isEmpty ? nil : values[values.count / 2]
    }
    private var realTimeFactor: Double { cpuSeconds / max(mic.durationSeconds, 1e-9) }

    func text() -> String {
        var lines = ["afe process: \(options.mic) (\(String(format: "%.1f", mic.durationSeconds)) s at \(mic.sampleRate) Hz)"]
        if let delay = finalDelay { lines.append(String(format: "  echo delay found: %.1f ms", delay)) }
        else if options.reference != nil { lines.append("  echo delay found: none (no confident estimate)") }
        if let erle = medianERLE { lines.append(String(format: "  echo removed (median ERLE while the far end plays): %.1f dB", erle)) }
        let segments = collector.segments.map { "\(fmt($0.start))–\($0.end.map(fmt) ?? "end")" }
        lines.append("  speech segments: \(segments.isEmpty ? "none" : segments.joined(separator: ", "))")
        lines.append("  barge-ins: \(collector.bargeIns.isEmpty ? "none" : collector.bargeIns.map { fmt($0.milliseconds) }.joined(separator: ", "))")
        if !collector.suspicions.isEmpty {
            lines.append("  barge-in suspicions: \(collector.suspicions.map { fmt($0.milliseconds) }.joined(separator: ", "))")
        }
        let drops = summary.drops
        lines.append("  drops: mic refused \(drops.micRefusedBytes) B, reference dropped \(drops.referenceDroppedSamples), reference missing \(drops.referenceMissingSamples)"
                     + (drops.referenceRefusedBytes > 0 ? ", reference refused \(drops.referenceRefusedBytes) B" : ""))
        lines.append(String(format: "  processing: %.3f s CPU, real-time factor %.4f", cpuSeconds, realTimeFactor))
        let delay = summary.processingDelay
        lines.append(String(format: "  processing delay: %.1f ms (%d samples), removed: the output is aligned with the mic",
                            delay.milliseconds, delay.samples))
        lines.append("  wrote \(options.output) (\(outputSamples) samples at \(options.configuration.effectiveOutputRate) Hz)")
        if let opus = options.opus { lines.append("  wrote \(opus) (\(collector.oggBytes.count) bytes Ogg Opus)") }
        return lines.joined(separator: "\n")
    }

    func json() throws -> Data {
        let object: [String: Any] = [
            "mic": ["path": options.mic, "sample_rate": mic.sampleRate, "duration_s": mic.durationSeconds],
            "reference": reference.map { ["path": options.reference as Any, "sample_rate": $0.sampleRate,
                                          "duration_s": $0.durationSeconds] } as Any,
            "output": ["path": options.output, "sample_rate": options.configuration.effectiveOutputRate,
                       "samples": outputSamples, "offset_samples": 0,
                       "processing_delay_samples": summary.processingDelay.samples,
                       "processing_delay_ms": summary.processingDelay.milliseconds,
                       "duration_s": Double(outputSamples) / Double(options.configuration.effectiveOutputRate)],
            "delay_estimate_ms": collector.telemetry.map { ["t_ms": $0.milliseconds, "delay_ms": $0.delayMilliseconds as Any,
                                                             "alignment_ms": $0.alignmentMilliseconds] },
            "echo": ["median_erle_db": medianERLE as Any,
                     "erle_db": collector.telemetry.map { ["t_ms": $0.milliseconds, "erle_db": $0.erleDecibels as Any,
                                                          "double_talk": $0.isDoubleTalk] }],
            "vad_segments": collector.segments.map { ["start_ms": $0.start, "end_ms": $0.end as Any] },
            "barge_ins": collector.bargeIns.map { ["ms": $0.milliseconds, "speech_start_ms": $0.speechStartMilliseconds] },
            "barge_in_suspicions": collector.suspicions.map { ["ms": $0.milliseconds, "speech_start_ms": $0.speechStartMilliseconds] },
            "drops": ["mic_refused_bytes": summary.drops.micRefusedBytes,
                      "reference_refused_bytes": summary.drops.referenceRefusedBytes,
                      "reference_dropped_samples": summary.drops.referenceDroppedSamples,
                      "reference_missing_samples": summary.drops.referenceMissingSamples],
            "frames_processed": summary.framesProcessed,
            "processing": ["cpu_s": cpuSeconds, "wall_s": wallSeconds, "real_time_factor": realTimeFactor],
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }

    private func fmt(_ ms: Int) -> String { String(format: "%.2f s", Double(ms) / 1000) }
}
