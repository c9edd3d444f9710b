import AudioFrontEnd
import Foundation
import NuiSDK
import NuiTTS

/// What the TTS soak counts: the SDK's callbacks (callback thread) and the front end's output (its drain thread).
/// Any thread; everything under `condition`.
final class TtsEvents: NeoNuiStreamInputTtsDelegate, FrontEndDelegate, @unchecked Sendable {
    struct Counts: CustomStringConvertible {
        var started = 0, complete = 0, failed = 0, sentenceEnds = 0, drained = 0, rearmed = 0, stopped = 0, decodeFailed = 0
        var interrupted = 0, interruptions = 0
        var description: String {
            "started \(started), complete \(complete), failed \(failed), drained \(drained), rearmed \(rearmed), "
                + "stopped \(stopped), interrupted \(interrupted), decode failed \(decodeFailed)"
        }
    }

    private let condition = NSCondition()
    private var counts_ = Counts()
    private var bytes = 0
    private var drained: Int64 = 0
    private var output = 0
    private var firstFailure: String?

    func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                       sessionId: UnsafePointer<CChar>?, ret_code: Int32, error_msg: UnsafePointer<CChar>?,
                                       timestamp: UnsafePointer<CChar>?, all_response: UnsafePointer<CChar>?) {
        let message = error_msg.map { String(cString: $0) } ?? ""
        update {
            switch event {
            case .TTS_EVENT_SYNTHESIS_STARTED: counts_.started += 1
            case .TTS_EVENT_SYNTHESIS_COMPLETE: counts_.complete += 1
            case .TTS_EVENT_SENTENCE_END: counts_.sentenceEnds += 1
            case .TTS_EVENT_TASK_FAILED:
                counts_.failed += 1
                if firstFailure == nil { firstFailure = "code \(ret_code): \(message)" }
            default: break
            }
        }
    }

    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) { update { bytes += Int(len) } }

    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64) {
        update {
            switch event {
            case .TTS_PLAYBACK_DRAINED:
                counts_.drained += 1
                drained += position_ms
            case .TTS_PLAYBACK_MIC_REARMED: counts_.rearmed += 1
            case .TTS_PLAYBACK_STOPPED: counts_.stopped += 1
            case .TTS_PLAYBACK_INTERRUPTED: counts_.interrupted += 1
            case .TTS_PLAYBACK_DECODE_FAILED:
                counts_.decodeFailed += 1
                if firstFailure == nil { firstFailure = "TTS_PLAYBACK_DECODE_FAILED" }
            default: break
            }
        }
    }

    func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption) {
        update { counts_.interruptions += 1 }
    }

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        if case .audio(let chunk) = event { update { output += chunk.samples.count } }
    }

    private func update(_ body: () -> Void) {
        condition.withLock {
            body()
            condition.broadcast()
        }
    }

    var counts: Counts { condition.withLock { counts_ } }
    /// Bytes of audio the data callback delivered, every task.
    var dataBytes: Int { condition.withLock { bytes } }
    /// The playback's drained positions summed over the tasks: milliseconds handed to the device.
    var drainedMilliseconds: Int64 { condition.withLock { drained } }
    /// Milliseconds of PCM the data callback delivered (`bytes / 2` samples at `rate`).
    func audioMilliseconds(rate: Int) -> Int { dataBytes / 2 * 1000 / rate }
    var outputSamples: Int { condition.withLock { output } }
    var failure: String? { condition.withLock { firstFailure } }

    /// Waits until the mic was re-armed `count` times in all (false on timeout).
    func wait(rearmed count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while counts_.rearmed < count && firstFailure == nil {
            if !condition.wait(until: deadline) { return false }
        }
        return counts_.rearmed >= count
    }
}
