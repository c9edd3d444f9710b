import Foundation

/// A list that callbacks append to and a test waits on (shared with VoiceRecognitionTests through a symlink).
final class WaitableLog<Element>: @unchecked Sendable { // every access holds `condition`
    private let condition = NSCondition()
    private var items: [Element] = []

    func append(_ item: Element) {
        condition.withLock {
            items.append(item)
            condition.broadcast()
        }
    }

    var all: [Element] { condition.withLock { items } }

    /// Waits until an item (from index `after` on) satisfies `match`; returns it, or nil after `timeout` s.
    /// `match` runs under the lock: it must not read the log.
    func wait(after: Int = 0, timeout: TimeInterval, for match: (Element) -> Bool) -> Element? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        var checked = after
        while true {
            while checked < items.count {
                if match(items[checked]) { return items[checked] }
                checked += 1
            }
            if !condition.wait(until: deadline) { return nil }
        }
    }
}
