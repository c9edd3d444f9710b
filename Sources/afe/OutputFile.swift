import Foundation

/// A run that cannot go ahead as asked (not a malformed command line): one `afe:` line, exit status 1.
struct RunFailure: Error { let message: String }

/// Output files of the CLI: checked before any work, written with one-line errors naming the file.
enum OutputFile {
    /// Fails when two of `outputs` (option name, path) name the same file, or an output names one of `inputs`
    /// (it would be replaced while or after it is read), however spelled: `./x` and `x`, `d/../x`, a symlinked
    /// directory or a symlink to the file. Identity is the real path of an existing file, else the real path
    /// of its directory plus its name.
    static func checkDistinct(outputs: [(option: String, path: String)], inputs: [(option: String, path: String)]) throws {
        var seen: [(option: String, path: String, identity: String)] = inputs.map { ($0.option, $0.path, identity($0.path)) }
        for output in outputs {
            let id = identity(output.path)
            if let other = seen.first(where: { $0.identity == id }) {
                throw RunFailure(message: "\(output.option) \(output.path) names the same file as \(other.option) \(other.path)")
            }
            seen.append((output.option, output.path, id))
        }
    }

    /// The file `path` names: its real path when it exists, else its directory's real path and its name.
    static func identity(_ path: String) -> String {
        if let real = realPath(path) { return real }
        let (directory, name) = split(path)
        return (realPath(directory) ?? directory) + "/" + name
    }

    /// `path`'s directory ("." for a bare name, "/" at the root) and its last component. Not NSString's
    /// `deletingLastPathComponent`: swift-corelibs-foundation traps on a one-character relative path ("y").
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Fails unless `path` can be created or replaced (its directory exists and is writable, and it is not a
    /// directory itself). Checked before processing, so a typo costs no waiting.
    static func checkWritable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ProcessOptions.Failure(message: "cannot write \(path): it is a directory")
        }
        let parent = split(path).directory
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
