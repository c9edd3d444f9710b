import AudioFrontEnd
import Foundation

/// Collects the front end's events for the files and the report (drain thread writes, main thread reads after finish).
final class Collector: FrontEndDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var audio: [Int16] = []
    private(set) var oggBytes: [UInt8] = []
    private(set) var segments: [(start: Int, end: Int?)] = []
    private(set) var telemetry: [EchoTelemetry] = []
    private(set) var bargeIns: [BargeInDecision] = []
    private(set) var suspicions: [BargeInDecision] = []

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        lock.withLock {
            switch event {
            case .audio(let chunk): audio += chunk.samples
            case .oggPage(let page): oggBytes += page
            case .speechStarted(let ms): segments.append((ms, nil))
            case .speechEnded(let ms): if !segments.isEmpty { segments[segments.count - 1].end = ms }
            case .telemetry(let t): telemetry.append(t)
            case .bargeIn(let decision) where decision.isSuspicion: suspicions.append(decision)
            case .bargeIn(let decision): bargeIns.append(decision)
            default: break
            }
        }
    }

    /// One line per 10 ms output frame: `frame_index,0|1`.
    func vadLabels(frames: Int) -> String {
        var lines = ""
        for frame in 0..<frames {
            let ms = frame * 10
            let speech = segments.contains { ms >= $0.start && ms < ($0.end ?? Int.max) }
            lines += "\(frame),\(speech ? 1 : 0)\n"
        }
        return lines
    }
}
