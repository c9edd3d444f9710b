import Foundation
import VoiceRecognition

/// The summary `afe stream` prints after the last result.
struct StreamReport {
    let summary: RecognitionSummary
    let audioSeconds: Double
    let expected: String?
    /// Whether a reference was pushed (without one, missing reference is expected, not a drop).
    let hasReference: Bool

    func text() -> String {
        func seconds(_ duration: Duration?) -> String {
            guard let duration else { return "–" }
            return String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        func at(_ ms: Int) -> String { String(format: "%.2f", Double(ms) / 1000) }
        var lines = ["summary:"]
        lines.append("  sentences: \(summary.sentences.count)")
        lines.append("  heard: \"\(summary.text)\"")
        if let expected {
            let wer = WordErrorRate.of(reference: WordErrorRate.words(expected), hypothesis: WordErrorRate.words(summary.text))
            lines.append(String(format: "  word error rate against the expected text: %.2f", wer))
        }
        lines.append("  echo delay found: " + (summary.delayMilliseconds.map { String(format: "%.0f ms", $0) } ?? "none"))
        lines.append("  echo removed (median ERLE while the far end plays): "
                     + (summary.echoReductionDecibels.map { String(format: "%.1f dB", $0) } ?? "– (no far end)"))
        if let delay = summary.frontEnd?.processingDelay {
            lines.append(String(format: "  processing delay (AEC data and audio sent lag the mic by): %.1f ms", delay.milliseconds))
        }
        let segments = summary.speechSegments.map { "\(at($0.startMilliseconds))–\($0.endMilliseconds.map(at) ?? "end") s" }
        lines.append("  speech segments (on-device VAD): " + (segments.isEmpty ? "none" : segments.joined(separator: ", ")))
        lines.append("  drops: " + dropsText)
        lines.append("  sent: \(summary.statistics.audioBytesSent) bytes in \(summary.statistics.audioFramesSent) frames")
        lines.append("  timings: started after \(seconds(summary.timeToStart)), completed \(seconds(summary.timeToComplete)) "
                     + "after the end of audio, \(seconds(summary.totalTime)) in all for \(String(format: "%.1f", audioSeconds)) s of audio")
        return lines.joined(separator: "\n")
    }

    private var dropsText: String {
        let drops = summary.drops
        var parts: [String] = []
        if drops.frontEnd.micRefusedBytes > 0 {
            parts.append("mic pushes refused \(drops.frontEnd.micRefusedBytes) B")
        }
        if hasReference {
            if drops.frontEnd.referenceDroppedSamples > 0 { parts.append("reference dropped \(drops.frontEnd.referenceDroppedSamples)") }
            if drops.frontEnd.referenceMissingSamples > 0 { parts.append("reference missing \(drops.frontEnd.referenceMissingSamples)") }
            if drops.frontEnd.referenceRefusedBytes > 0 { parts.append("reference pushes refused \(drops.frontEnd.referenceRefusedBytes) B") }
        }
        if drops.audioBytesNotSent > 0 { parts.append("audio not sent \(drops.audioBytesNotSent) B") }
        if drops.eventsDropped > 0 { parts.append("service events dropped \(drops.eventsDropped)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
