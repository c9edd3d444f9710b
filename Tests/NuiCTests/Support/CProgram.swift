import Foundation
import XCTest

/// The C test program (Tests/NuiCProgram), compiled with the system C compiler against `nui.h` and the
/// `libnui.so` that `swift build` / `swift test` put next to the test bundle, then run as its own process.
enum CProgram {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let sources = root.appendingPathComponent("Tests/NuiCProgram")
    static let include = root.appendingPathComponent("Sources/CNui/include")

    /// The build directory holding the test bundle (and libnui.so, built by the same `swift build`).
    static var buildDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// What one run printed, and how it ended.
    struct Run {
        let status: Int32
        let output: String
        /// The `key=value` pairs of the `summary` line.
        var summary: [String: String] {
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("summary ") }) else { return [:] }
            var pairs: [String: String] = [:]
            for field in line.split(separator: " ").dropFirst() {
                let parts = field.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { pairs[String(parts[0])] = String(parts[1]) }
            }
            return pairs
        }
        func int(_ key: String) -> Int { Int(summary[key] ?? "") ?? -1 }
        /// The `check ... FAIL` lines.
        var failedChecks: [String] {
            output.split(separator: "\n").filter { $0.hasPrefix("check ") && $0.hasSuffix(" FAIL") }.map(String.init)
        }
    }

    /// With `AFE_C_SANITIZE=address` (Scripts/asan-tests.sh, against a libnui.so built with `--sanitize=address`)
    /// the programs are compiled by the Swift toolchain's clang with AddressSanitizer (the same runtime as the
    /// library's; `AFE_C_SANITIZE_CLANG_DIR` names its directory), and LeakSanitizer checks them at exit: any report
    /// makes the program exit non-zero, which fails the test.
    static var sanitizer: String? { ProcessInfo.processInfo.environment["AFE_C_SANITIZE"] }

    static func compiler(_ plain: String, _ standard: String) -> [String] {
        guard let sanitizer else { return [plain, standard] }
        let clang = plain == "cc" ? "clang" : "clang++"
        return [ProcessInfo.processInfo.environment["AFE_C_SANITIZE_CLANG_DIR"].map { "\($0)/\(clang)" } ?? clang,
                standard, "-fsanitize=\(sanitizer)", "-fno-omit-frame-pointer", "-g"]
    }

    /// The C program: nui_demo (C99).
    static func compileDemo(into directory: URL) throws -> String {
        try compile(["nui_demo.c", "nui_demo_support.c"], compiler: compiler("cc", "-std=c99"), name: "nui_demo",
                    into: directory)
    }

    /// The C++ program: nui_cpp_smoke (C++11, over nui.hpp).
    static func compileCppSmoke(into directory: URL) throws -> String {
        try compile(["nui_cpp_smoke.cpp"], compiler: compiler("c++", "-std=c++11"), name: "nui_cpp_smoke",
                    into: directory)
    }

    /// Compiles `files` of Tests/NuiCProgram (warnings are errors) against the headers and libnui.so into
    /// `directory`; returns the executable's path.
    static func compile(_ files: [String], compiler: [String], name: String, into directory: URL) throws -> String {
        let library = buildDirectory.appendingPathComponent("libnui.so")
        guard FileManager.default.fileExists(atPath: library.path) else {
            XCTFail("\(library.path) is missing: `swift build` (or `swift build --product nui`) builds it")
            throw CocoaError(.fileNoSuchFile)
        }
        let executable = directory.appendingPathComponent(name).path
        let result = try run("/usr/bin/env", compiler + ["-Wall", "-Wextra", "-Werror", "-pedantic", "-I", include.path]
                             + files.map { sources.appendingPathComponent($0).path }
                             + ["-L", buildDirectory.path, "-lnui", "-Wl,-rpath," + buildDirectory.path,
                                "-lpthread", "-lm", "-o", executable], timeout: 120)
        guard result.status == 0 else {
            XCTFail("\(compiler[0]) failed (\(result.status)):\n\(result.output)")
            throw CocoaError(.executableLoad)
        }
        return executable
    }

    /// Runs `path` with `arguments`; stdout and stderr together. Killed after `timeout` seconds (status -9).
    static func run(_ path: String, _ arguments: [String], timeout: TimeInterval) throws -> Run {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if sanitizer != nil, let options = ProcessInfo.processInfo.environment["AFE_C_ASAN_OPTIONS"] {
            // The programs' own sanitizer options (leak checks on), not the test runner's (Scripts/asan-tests.sh).
            process.environment = ProcessInfo.processInfo.environment.merging(["ASAN_OPTIONS": options]) { $1 }
        }
        let logURL = FileManager.default.temporaryDirectory.appendingPathComponent("nuic-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? FileManager.default.removeItem(at: logURL) }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try log.close()
        let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return Run(status: status, output: output)
    }
}
