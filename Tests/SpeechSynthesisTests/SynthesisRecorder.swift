import Foundation
import SpeechSynthesis
import SpeechStreaming

/// A delegate that keeps every event and lets a test wait for the task's end.
final class SynthesisRecorder: SpeechSynthesisDelegate, @unchecked Sendable { // state under `condition`
    private let condition = NSCondition()
    private var list: [SynthesisEvent] = []

    func synthesisSession(_ session: SpeechSynthesisSession, didReceive event: SynthesisEvent) {
        condition.lock()
        list.append(event)
        condition.broadcast()
        condition.unlock()
    }

    var events: [SynthesisEvent] { condition.withLock { list } }

    /// Waits until an event from index `after` on satisfies `match`.
    @discardableResult
    func wait(after: Int = 0, timeout: TimeInterval = 15, for match: (SynthesisEvent) -> Bool) -> SynthesisEvent? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if list.count > after, let hit = list[after...].first(where: match) { return hit }
            if !condition.wait(until: deadline) { return nil }
        }
    }

    /// The task's last event: `.completed` or `.error`.
    func waitForEnd(after: Int = 0, timeout: TimeInterval = 15) -> SynthesisEvent? {
        wait(after: after, timeout: timeout) { $0.isTaskBoundary && !isStarted($0) }
    }

    var audio: [UInt8] { frames.flatMap { $0 } }
    var frames: [[UInt8]] { events.compactMap { if case .audio(let a) = $0 { a.bytes } else { nil } } }
    var errors: [SpeechStreamingError] { events.compactMap { if case .error(let e) = $0 { e } else { nil } } }
    var sentences: [SynthesisSentence] {
        events.compactMap { if case .sentenceEnd(let s) = $0 { s } else { nil } }
    }
}

func isStarted(_ event: SynthesisEvent) -> Bool { if case .started = event { true } else { false } }
