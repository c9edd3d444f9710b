import Foundation
import XCTest

/// The reference server (Scripts/reference-server/server.py, speech synthesis included) on a free loopback port,
/// started with the repository's `.venv` and stopped by closing its stdin.
final class SynthesisServer: @unchecked Sendable { // used by one test at a time
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let port: Int
    private let process = Process()
    private let input = Pipe()

    /// `script`: another server with the same command-line contract, e.g. Scripts/hostile-server/hostile_server.py.
    init(_ arguments: [String] = [], script: String = "Scripts/reference-server/server.py") throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python").path
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: python),
                          "the reference server needs .venv: run Scripts/setup-python.sh")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.root.appendingPathComponent(script).path,
                             "--host", "127.0.0.1", "--port", "0"] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = [UInt8]()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte.first == 0x0A { break }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("LISTENING "), let port = Int(text.dropFirst(10)) else {
            process.terminate()
            throw NSError(domain: "SynthesisServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no LISTENING line: \(text)"])
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    var url: String { "ws://127.0.0.1:\(port)/api-ws/v1/inference" }
}

/// Runs a command; returns its exit status and standard output.
func runTool(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
