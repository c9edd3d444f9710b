import Foundation
import XCTest

/// The reference ASR server (Scripts/reference-server/server.py) on a free loopback port, for one test.
///
/// Launched with the repository's `.venv` (made by Scripts/setup-python.sh, run here once if missing);
/// `--log` records every message it sends and receives, which tests read to check what reached the wire.
/// Stopped by closing its stdin (the server exits on EOF).
final class ReferenceServer: @unchecked Sendable { // used by one test thread
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".venv/bin/python").path

    let port: Int
    let logPath: String
    private let process = Process()
    private let input = Pipe()
    private let directory: URL

    /// Starts the server with extra command-line arguments (faults, --api-key, TLS files, ...); `script` is
    /// another server with the same command-line contract (--host, --port, --log, `LISTENING <port>`), such as
    /// Scripts/hostile-server/hostile_server.py.
    init(_ arguments: [String] = [], script: String = "Scripts/reference-server/server.py") throws {
        try Self.ensureEnvironment()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("refserver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logPath = directory.appendingPathComponent("log.jsonl").path
        let output = Pipe()
        let errorPath = directory.appendingPathComponent("stderr.txt").path
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [Self.root.appendingPathComponent(script).path,
                             "--host", "127.0.0.1", "--port", "0", "--log", logPath] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
        let line = Self.readLine(output.fileHandleForReading, timeout: 20)
        guard let line, line.hasPrefix("LISTENING "), let port = Int(line.dropFirst(10)) else {
            process.terminate()
            let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw NSError(domain: "ReferenceServer", code: 1, userInfo: [NSLocalizedDescriptionKey:
                "server did not start: \(line ?? "no output") \(errors)"])
        }
        self.port = port
    }

    /// The hostile server (Scripts/hostile-server) in `mode` (`NAME[:key=value,...]`).
    static func hostile(_ mode: String) throws -> ReferenceServer {
        try ReferenceServer(["--mode", mode], script: "Scripts/hostile-server/hostile_server.py")
    }

    deinit { stop() }

    func url(_ path: String = "/api-ws/v1/inference", scheme: String = "ws", host: String = "127.0.0.1") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    /// Stops the server (closes stdin; SIGKILL after 5 s). Idempotent.
    func stop() {
        guard process.isRunning else { return }
        resume()
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Freezes the server process (it stops answering everything, WebSocket pings included).
    func suspend() { kill(process.processIdentifier, SIGSTOP) }
    func resume() { kill(process.processIdentifier, SIGCONT) }

    /// The server's JSON-lines log so far.
    func log() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Text messages the server received, parsed, in order.
    func receivedMessages() -> [[String: Any]] {
        log().filter { $0["kind"] as? String == "recv-text" }.compactMap {
            guard let text = $0["text"] as? String else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        }
    }

    private static func ensureEnvironment() throws {
        if !FileManager.default.isExecutableFile(atPath: python) {
            let setup = Process()
            setup.executableURL = URL(fileURLWithPath: "/bin/bash")
            setup.arguments = [root.appendingPathComponent("Scripts/setup-python.sh").path]
            try setup.run()
            setup.waitUntilExit()
        }
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: python),
                          "the reference server needs .venv: run Scripts/setup-python.sh")
    }

    private static func readLine(_ handle: FileHandle, timeout: TimeInterval) -> String? {
        let result = LockedValue<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var bytes: [UInt8] = []
            while true {
                let chunk = handle.readData(ofLength: 1)
                if chunk.isEmpty || chunk.first == 0x0A { break }
                bytes.append(contentsOf: chunk)
            }
            result.set(String(decoding: bytes, as: UTF8.self))
            done.signal()
        }
        return done.wait(timeout: .now() + timeout) == .success ? result.get() : nil
    }
}

/// A value shared between threads under a lock.
final class LockedValue<T>: @unchecked Sendable { // every access holds the lock
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func get() -> T { lock.withLock { value } }
    func set(_ newValue: T) { lock.withLock { value = newValue } }
    func update<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&value) } }
}
