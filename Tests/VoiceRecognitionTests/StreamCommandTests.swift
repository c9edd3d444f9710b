import Foundation
import XCTest

/// `afe stream` as a user runs it: the built binary against the reference server.
final class StreamCommandTests: XCTestCase {
    static let secret = "sk-cli-secret-5151"

    /// The `afe` executable next to the test bundle (built by `swift build --build-tests`).
    static var afe: String {
        Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("afe").path
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.afe), "afe is not built at \(Self.afe)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.afe)
        process.arguments = arguments
        process.currentDirectoryURL = TestVectors.directory.deletingLastPathComponent()
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "DASHSCOPE_API_KEY" }
            .merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    func testStreamPrintsResultsThenTheSummary() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        for (wire, url, format) in [("dashscope", server.url(), "pcm"), ("nls", server.url("/ws/v1"), "opus")] {
            let result = try run(["stream", "--mic", "TestVectors/\(RecognitionFlowTests.vector)",
                                  "--reference", "TestVectors/farend_16k.wav", "--url", url, "--protocol", wire,
                                  "--format", format, "--app-key", "appkey", "--expected", "alpha bravo"],
                                 environment: ["DASHSCOPE_API_KEY": Self.secret, "NLS_TOKEN": Self.secret])
            let label = "\(wire) \(format): \(result.out) \(result.err)"
            XCTAssertEqual(result.status, 0, label)
            XCTAssertTrue(result.out.contains("  started (task "), label)
            let finals = result.out.split(separator: "\n").filter { $0.hasPrefix("  [") }
            XCTAssertGreaterThanOrEqual(finals.count, 3, label)
            for line in ["summary:", "echo delay found: 120 ms", "drops: none", "word error rate against the expected text:"] {
                XCTAssertTrue(result.out.contains(line), "\(line) missing: \(label)")
            }
            XCTAssertFalse(result.out.contains(Self.secret) || result.err.contains(Self.secret), "the key was printed")
        }
    }

    func testFailuresPrintOneLineAndExitNonZero() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        let mic = "TestVectors/nearend_16k.wav"
        let wrongKey = try run(["stream", "--mic", mic, "--url", server.url()], environment: ["DASHSCOPE_API_KEY": "sk-wrong-key-0000"])
        XCTAssertEqual(wrongKey.status, 1, wrongKey.err)
        XCTAssertTrue(wrongKey.err.hasPrefix("afe: ") && wrongKey.err.contains("unauthorized"), wrongKey.err)
        XCTAssertFalse(wrongKey.err.contains("sk-wrong-key-0000") || wrongKey.out.contains("sk-wrong-key-0000"))
        server.stop()
        let refused = try run(["stream", "--mic", mic, "--url", server.url()])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.err.split(separator: "\n").count, 1, refused.err)
        XCTAssertTrue(refused.err.contains("connectionRefused"), refused.err)
        let cases: [([String], String)] = [
            (["stream", "--mic", mic], "--url URL is required"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/", "--api-key", "x"], "set DASHSCOPE_API_KEY"),
            (["stream", "--mic", mic, "--url", "wss://dashscope.example/x"], "set DASHSCOPE_API_KEY"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/", "--format", "mp3"], "--format takes pcm or opus"),
            (["stream", "--mic", "missing.wav", "--url", "ws://127.0.0.1:1/"], "missing.wav"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertEqual(result.err.split(separator: "\n").count, 1, "\(arguments): \(result.err)")
            XCTAssertTrue(result.err.contains(message), "\(arguments): \(result.err)")
        }
        let help = try run(["stream", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.err.hasPrefix("usage: afe stream"), help.err)
    }
}
