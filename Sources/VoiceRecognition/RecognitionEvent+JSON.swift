import AudioFrontEnd
import Foundation

extension RecognitionEvent {
    /// The event as JSON, for NUI's `nui_get_all_response`: the server's message verbatim (``rawJSON``) when the
    /// event came from the service, otherwise a small object naming the event and its values, e.g.
    /// `{"event":"speech_start","milliseconds":3040}`. Not real-time safe (Foundation); any thread.
    public var json: String {
        if let rawJSON { return rawJSON }
        var object: [String: Any] = ["event": name]
        switch self {
        case .speechStarted(let ms), .speechEnded(let ms), .micSilent(let ms):
            object["milliseconds"] = ms
        case .audio(let chunk):
            object["position"] = chunk.position
            object["sample_rate"] = chunk.sampleRate
            object["sample_count"] = chunk.samples.count
        case .level(let ms, let input, let output):
            object["milliseconds"] = ms
            object["input_dbfs"] = Double(input)
            object["output_dbfs"] = Double(output)
        case .telemetry(let t):
            object["milliseconds"] = t.milliseconds
            object["delay_ms"] = t.delayMilliseconds ?? NSNull()
            object["alignment_ms"] = t.alignmentMilliseconds
            object["erle_db"] = t.erleDecibels ?? NSNull()
            object["double_talk"] = t.isDoubleTalk
            object["drift_ppm"] = t.driftPartsPerMillion ?? NSNull()
        case .drops(let d):
            object["mic_refused_bytes"] = d.frontEnd.micRefusedBytes
            object["reference_dropped_samples"] = d.frontEnd.referenceDroppedSamples
            object["reference_missing_samples"] = d.frontEnd.referenceMissingSamples
            object["reference_refused_bytes"] = d.frontEnd.referenceRefusedBytes
            object["audio_bytes_not_sent"] = d.audioBytesNotSent
        case .reconnecting(let r):
            object["attempt"] = r.attempt
            object["message"] = r.cause.message
        case .error(let e):
            object["message"] = e.message
        case .completed(let s):
            object["ending"] = s.ending == .finished ? "finished" : "cancelled"
            object["sentences"] = s.sentences.map(\.text)
        default:
            break
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A short snake-case name of the event's kind (`started`, `partial_result`, `aec_data`, `mic_silent`, ...).
    public var name: String {
        switch self {
        case .started: "started"
        case .sentenceStart: "sentence_start"
        case .partialResult: "partial_result"
        case .finalResult: "final_result"
        case .translation: "translation"
        case .speechStarted: "speech_start"
        case .speechEnded: "speech_end"
        case .audio: "aec_data"
        case .level: "level"
        case .telemetry: "telemetry"
        case .drops: "drops"
        case .micSilent: "mic_silent"
        case .reconnecting: "reconnecting"
        case .error: "error"
        case .completed: "completed"
        }
    }
}
