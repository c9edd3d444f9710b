import Foundation

/// Keeps the C strings NeoNui hands out: the full JSON of the current event (`nui_get_all_response`) and the
/// version. A returned pointer stays valid until eight more events have been delivered, which covers "during and
/// right after the callback" as the NUI SDK promises. Thread safe.
final class ResponseStore: @unchecked Sendable { // `recent` under `lock`
    private final class CString {
        let pointer: UnsafeMutablePointer<CChar>
        init(_ text: String) { pointer = strdup(text) }
        deinit { free(pointer) }
    }

    private let lock = NSLock()
    private var recent: [CString] = []
    private var text: String?

    /// Makes `json` the current event's response. Callback thread.
    func set(_ json: String) {
        let string = CString(json)
        lock.withLock {
            recent.append(string)
            if recent.count > 8 { recent.removeFirst() }
            text = json
        }
    }

    /// The current event's response, or nil before the first event.
    var current: UnsafePointer<CChar>? { lock.withLock { text == nil ? nil : UnsafePointer(recent.last?.pointer) } }

    /// The current response as a String (tests, logs).
    var currentText: String? { lock.withLock { text } }

    func clear() { lock.withLock { text = nil } }
}
