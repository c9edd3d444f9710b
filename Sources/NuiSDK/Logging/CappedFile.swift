#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that never grows past a byte limit: when the next write would pass it, the file is closed, renamed to
/// `<name>.1<ext>` (replacing the previous one) and started again. So at most two files exist, each at most
/// `limit` bytes: the current one and the one before.
///
/// An optional header (a WAV header) is written first and rewritten with the final data size when a file is
/// closed. Not thread safe: the owner serializes calls. Not real-time safe (file I/O).
package final class CappedFile {
    let path: String
    let previousPath: String
    let limit: Int
    private let header: ((_ dataBytes: Int) -> [UInt8])?
    private var descriptor: Int32 = -1
    private var size = 0
    private var headerSize = 0
    /// Files started so far (1 after the first write).
    private(set) var filesStarted = 0

    /// - Parameters:
    ///   - path: the current file, e.g. `/debug/nui.log`; the previous one is `/debug/nui.1.log`.
    ///   - limit: the most bytes per file (header included).
    package init(path: String, limit: Int, header: ((_ dataBytes: Int) -> [UInt8])? = nil) {
        self.path = path
        self.limit = max(limit, 64)
        self.header = header
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        if let dot = path[slash...].lastIndex(of: ".") {
            previousPath = String(path[..<dot]) + ".1" + String(path[dot...])
        } else {
            previousPath = path + ".1"
        }
    }

    deinit { close() }

    /// Appends `bytes`, splitting them across a rotation when the file is full. Returns false when the file
    /// cannot be opened or written.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer, alignment: Int = 1) -> Bool {
        var offset = 0
        while offset < bytes.count {
            if descriptor < 0 { guard open() else { return false } }
            var room = limit - size
            room -= room % alignment
            if room <= 0 {
                rotate()
                continue
            }
            let count = min(room, bytes.count - offset)
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, count)
            guard written > 0 else { return false }
            offset += written
            size += written
        }
        return true
    }

    package func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(UnsafeRawBufferPointer($0)) }
    }

    /// Finishes the current file (rewrites its header) and closes it.
    package func close() {
        guard descriptor >= 0 else { return }
        if let header {
            let bytes = header(size - headerSize)
            _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        Glibc.close(descriptor)
        descriptor = -1
    }

    private func rotate() {
        close()
        _ = rename(path, previousPath)
        _ = open()
    }

    private func open() -> Bool {
        if filesStarted == 0 && access(path, F_OK) == 0 { _ = rename(path, previousPath) } // keep the last run's file
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        filesStarted += 1
        size = 0
        headerSize = 0
        if let header {
            let bytes = header(0)
            _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            size = bytes.count
            headerSize = bytes.count
        }
        return true
    }
}
