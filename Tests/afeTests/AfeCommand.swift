import AudioFrontEnd
import Foundation
import XCTest

/// Runs the built `afe` binary (next to the test bundle in .build) and makes test inputs with sox from the
/// bundled vectors, in a temporary directory per test case.
struct AfeCommand {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let vectors = root.appendingPathComponent("TestVectors")

    /// The `afe` executable built with the tests (same build directory as the test bundle), or `AFE_BINARY` when
    /// set (Scripts/hostile-tests.sh points it at the release build, what ships).
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["AFE_BINARY"], !path.isEmpty { return path }
        let besideBundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("afe").path
        if FileManager.default.isExecutableFile(atPath: besideBundle) { return besideBundle }
        return root.appendingPathComponent(".build/debug/afe").path
    }

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("afe-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func vector(_ name: String) -> String { vectors.appendingPathComponent(name).path }

    /// Runs `afe arguments` with stdout and stderr piped (not a terminal) and stdin from /dev/null; `environment`
    /// replaces the test's own (DASHSCOPE_API_KEY and NLS_TOKEN are never inherited).
    func afe(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try Self.run(Self.binary, arguments, in: directory, environment: environment)
    }

    /// Makes `name` from a vector with sox (`effects` e.g. ["trim", "0", "9"]; `options` are sox output options
    /// such as ["-r", "44100", "-b", "24"]). Returns its path.
    @discardableResult
    func sox(_ vector: String, _ name: String, options: [String] = [], effects: [String] = []) throws -> String {
        let output = path(name)
        let result = try Self.run("/usr/bin/sox", [Self.vector(vector)] + options + [output] + effects, in: directory)
        guard result.status == 0 else { throw NSError(domain: "sox", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return output
    }

    static func run(_ executable: String, _ arguments: [String], in directory: URL,
                    environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment
            .filter { $0.key != "DASHSCOPE_API_KEY" && $0.key != "NLS_TOKEN" }.merging(environment) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        let errorPath = directory.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        let errorHandle = try FileHandle(forWritingTo: errorPath)
        defer { try? FileManager.default.removeItem(at: errorPath) }
        process.standardOutput = out
        process.standardError = errorHandle // a file: not a terminal, and never full
        try process.run()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try errorHandle.close()
        let errorData = try Data(contentsOf: errorPath)
        return Result(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
                      stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// The lag (in samples, within ±`maximumLag`) at which `b` best matches `a`, and the normalized correlation there.
    static func bestLag(_ a: [Float], _ b: [Float], maximumLag: Int = 64) -> (lag: Int, correlation: Double) {
        let n = min(a.count, b.count)
        func dot(_ lag: Int) -> Double {
            var sum = 0.0
            for i in max(0, -lag)..<min(n, n - lag) { sum += Double(a[i]) * Double(b[i + lag]) }
            return sum
        }
        var energyA = 0.0, energyB = 0.0
        for i in 0..<n {
            energyA += Double(a[i]) * Double(a[i])
            energyB += Double(b[i]) * Double(b[i])
        }
        let energy = energyA * energyB
        let dots = (-maximumLag...maximumLag).map { (lag: $0, value: dot($0)) }
        let best = dots.max { $0.value < $1.value }!
        return (best.lag, best.value / max(energy.squareRoot(), 1e-12))
    }
}
