import Foundation
import SpeechStreaming
import XCTest

/// A delegate that keeps every event and lets a test wait for one.
final class EventRecorder: SpeechStreamingDelegate, @unchecked Sendable { // state in the log
    private let log = WaitableLog<SpeechEvent>()
    /// Called on the delivery queue for each event, before waiters are woken. Behind a lock: a test may set it
    /// while events arrive.
    var onEvent: (@Sendable (SpeechEvent) -> Void)? {
        get { hookLock.withLock { hook } }
        set { hookLock.withLock { hook = newValue } }
    }
    private let hookLock = NSLock()
    private var hook: (@Sendable (SpeechEvent) -> Void)?

    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent) {
        onEvent?(event)
        log.append(event)
    }

    var events: [SpeechEvent] { log.all }

    /// Waits until an event (from index `after` on) satisfies `match`; returns it, or nil after `timeout` s.
    @discardableResult
    func wait(after: Int = 0, timeout: TimeInterval = 10, for match: (SpeechEvent) -> Bool) -> SpeechEvent? {
        log.wait(after: after, timeout: timeout, for: match)
    }

    /// Waits for the task's end: `.completed` or `.error`.
    @discardableResult
    func waitForEnd(after: Int = 0, timeout: TimeInterval = 15) -> SpeechEvent? {
        wait(after: after, timeout: timeout) { if case .completed = $0 { true } else if case .error = $0 { true } else { false } }
    }

    /// Waits for `.error` and returns it.
    func waitForError(after: Int = 0, timeout: TimeInterval = 15) -> SpeechStreamingError? {
        if case .error(let error) = wait(after: after, timeout: timeout, for: { if case .error = $0 { true } else { false } }) {
            return error
        }
        return nil
    }

    var sentenceEnds: [RecognitionResult] {
        events.compactMap { if case .sentenceEnd(let r) = $0 { r } else { nil } }
    }
    var errors: [SpeechStreamingError] { events.compactMap { if case .error(let e) = $0 { e } else { nil } } }
}
