import Foundation

/// A progress bar on a terminal; nothing when output is piped.
final class Progress {
    let total: Int
    let enabled: Bool
    private var shown = -1

    init(total: Int, enabled: Bool) {
        self.total = max(1, total)
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let percent = done * 100 / total
        guard percent != shown else { return }
        shown = percent
        let bar = String(repeating: "#", count: percent / 4) + String(repeating: " ", count: 25 - percent / 4)
        FileHandle.standardError.write("\r[\(bar)] \(percent)%".data(using: .utf8)!)
    }

    func done() { if enabled { FileHandle.standardError.write("\n".data(using: .utf8)!) } }
}
