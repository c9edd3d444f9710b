import Foundation

/// Output files of the CLI: checked before any work, written with one-line errors naming the file.
enum OutputFile {
    /// Fails unless `path` can be created or replaced (its directory exists and is writable, and it is not a
    /// directory itself). Checked before processing, so a typo costs no waiting.
    static func checkWritable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ProcessOptions.Failure(message: "cannot write \(path): it is a directory")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let parent = directory.isEmpty ? "." : directory
        guard FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ProcessOptions.Failure(message: "cannot write \(path): directory \(parent) does not exist")
        }
        guard access(parent, W_OK) == 0 else {
            throw ProcessOptions.Failure(message: "cannot write \(path): directory \(parent) is not writable")
        }
    }

    /// Writes `data` to `path`, replacing it. The corresponding C functions are `fopen` and `fwrite`.
    static func write(_ data: Data, to path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw ProcessOptions.Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == data.count, closed == 0 else {
            throw ProcessOptions.Failure(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
