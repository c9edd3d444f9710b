import AudioFrontEnd
import Foundation
import XCTest

/// `afe stream` as a user runs it: the built binary against the reference server.
final class StreamCommandTests: XCTestCase {
    static let secret = "sk-cli-secret-5151"

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> AfeCommand.Result {
        let command = try AfeCommand()
        defer { command.remove() }
        return try command.afe(arguments, environment: environment)
    }

    func testStreamPrintsResultsThenTheSummary() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        for (wire, url, format) in [("dashscope", server.url(), "pcm"), ("nls", server.url("/ws/v1"), "opus")] {
            let result = try run(["stream", "--mic", AfeCommand.vector("doubletalk_ser-5db_16k.wav"),
                                  "--reference", AfeCommand.vector("farend_16k.wav"), "--url", url, "--protocol", wire,
                                  "--format", format, "--app-key", "appkey", "--expected", "alpha bravo"],
                                 environment: ["DASHSCOPE_API_KEY": Self.secret, "NLS_TOKEN": Self.secret])
            let label = "\(wire) \(format): \(result.stdout) \(result.stderr)"
            XCTAssertEqual(result.status, 0, label)
            XCTAssertTrue(result.stdout.contains("through NeoNui "), label)
            XCTAssertTrue(result.stdout.contains("  started (task "), label)
            let finals = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  [") }
            XCTAssertGreaterThanOrEqual(finals.count, 3, label)
            for line in ["summary:", "echo delay found: 120 ms", "drops: none", "word error rate against the expected text:"] {
                XCTAssertTrue(result.stdout.contains(line), "\(line) missing: \(label)")
            }
            XCTAssertFalse(result.stdout.contains(Self.secret) || result.stderr.contains(Self.secret), "the key was printed")
        }
    }

    /// The stream runs through the NUI SDK: with --debug-path, NeoNui writes its log and the debug WAVs of the
    /// dialog (what was pushed as mic and reference, and what the canceller put out), each holding the audio.
    func testDebugPathHasTheNuiSdkWriteItsFiles() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        let command = try AfeCommand()
        defer { command.remove() }
        let debug = command.directory.appendingPathComponent("nui-debug")
        let mic = AfeCommand.vector("doubletalk_ser-5db_16k.wav")
        let result = try command.afe(["stream", "--mic", mic, "--reference", AfeCommand.vector("farend_16k.wav"),
                                      "--url", server.url(), "--no-partials", "--debug-path", debug.path],
                                     environment: ["DASHSCOPE_API_KEY": Self.secret])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("drops: none"), result.stdout)
        let log = try String(contentsOf: debug.appendingPathComponent("nui.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("nui_initialize: NeoNui"), log)
        XCTAssertTrue(result.stderr.contains("nui_dialog_start"), "the SDK's log lines on standard error: \(result.stderr)")
        XCTAssertFalse(log.contains(Self.secret) || result.stderr.contains(Self.secret) || result.stdout.contains(Self.secret),
                       "the key was written")
        let micSeconds = try AudioFile(contentsOf: mic).durationSeconds
        for name in ["mic.wav", "reference.wav", "aec_output.wav"] {
            let file = try AudioFile(contentsOf: debug.appendingPathComponent(name).path)
            XCTAssertGreaterThan(file.durationSeconds, micSeconds * 0.9, name)
        }
    }

    /// NUI takes mic and reference at one rate: a reference at 48 kHz is resampled to the mic's 16 kHz, and the
    /// canceller still finds the echo's delay (120 ms in the vector) and removes it.
    func testReferenceAtAnotherRateIsResampledToTheMicRate() throws {
        let server = try ReferenceServer()
        let command = try AfeCommand()
        defer { command.remove() }
        let reference = try command.sox("farend_16k.wav", "farend_48k.wav", effects: ["rate", "48000"])
        let result = try command.afe(["stream", "--mic", AfeCommand.vector("doubletalk_ser-5db_16k.wav"), "--reference", reference,
                                      "--url", server.url(), "--no-partials"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.contains("echo delay found: ") }, result.stdout)
        let delay = try XCTUnwrap(Int(line.split(separator: " ").dropLast().last ?? ""), String(line))
        XCTAssertTrue((110...130).contains(delay), String(line))
        let erle = try XCTUnwrap(result.stdout.split(separator: "\n").first { $0.contains("echo removed") }, result.stdout)
        let decibels = try XCTUnwrap(Double(erle.split(separator: " ").dropLast().last ?? ""), String(erle))
        XCTAssertGreaterThan(decibels, 15, String(erle))
        XCTAssertTrue(result.stdout.contains("drops: none"), result.stdout)
    }

    /// --realtime paces the input: 2 s of audio cannot be streamed in less than 2 s (without it, far less).
    func testRealtimePacesTheInput() throws {
        let server = try ReferenceServer()
        let command = try AfeCommand()
        defer { command.remove() }
        let mic = try command.sox("nearend_16k.wav", "short.wav", effects: ["trim", "3", "2"])
        let started = Date()
        let result = try command.afe(["stream", "--mic", mic, "--url", server.url(), "--realtime", "--no-partials"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2.0, result.stdout)
        XCTAssertTrue(result.stdout.contains("drops: none"), result.stdout)
    }

    func testFailuresPrintOneLineAndExitNonZero() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        let mic = AfeCommand.vector("nearend_16k.wav")
        let wrongKey = try run(["stream", "--mic", mic, "--url", server.url()], environment: ["DASHSCOPE_API_KEY": "sk-wrong-key-0000"])
        XCTAssertEqual(wrongKey.status, 1, wrongKey.stderr)
        XCTAssertTrue(wrongKey.stderr.hasPrefix("afe: ") && wrongKey.stderr.contains("unauthorized"), wrongKey.stderr)
        XCTAssertFalse(wrongKey.stderr.contains("sk-wrong-key-0000") || wrongKey.stdout.contains("sk-wrong-key-0000"))
        server.stop()
        let refused = try run(["stream", "--mic", mic, "--url", server.url()])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("connection refused") && refused.stderr.contains("240301"), refused.stderr)
        let cases: [([String], String)] = [
            (["stream", "--mic", mic], "--url URL is required"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/", "--api-key", "x"], "set DASHSCOPE_API_KEY"),
            (["stream", "--mic", mic, "--url", "wss://dashscope.example/x"], "set DASHSCOPE_API_KEY"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/", "--format", "mp3"], "--format takes pcm or opus"),
            (["stream", "--mic", "missing.wav", "--url", "ws://127.0.0.1:1/"], "missing.wav"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/", "--rate", "48000"], "--rate is not available"),
            (["stream", "--mic", mic, "--url", "ws://127.0.0.1:1/ws/v1"], "--protocol dashscope needs the path"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let help = try run(["stream", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("usage: afe stream"), help.stdout)
    }
}
