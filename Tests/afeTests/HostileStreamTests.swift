import AudioFrontEnd
import Foundation
import XCTest

/// `afe stream` (through NeoNui) against the hostile server (Scripts/hostile-server): each failure is one `afe:`
/// line with the NUI result code and exit status 1, within the SDK's documented timeouts; a flood of results and a
/// late finish complete with exit 0.
final class HostileStreamTests: XCTestCase {
    struct Outcome {
        let result: AfeCommand.Result
        let seconds: Double
        let server: ReferenceServer
    }

    /// Streams `seconds` of the near-end vector (`--realtime` paces it) to the hostile server in `mode`.
    func stream(_ mode: String, wire: String = "dashscope", seconds: Int = 4, realtime: Bool = false,
                extra: [String] = []) throws -> Outcome {
        let server = try ReferenceServer.hostile(mode)
        let command = try AfeCommand()
        defer { command.remove() }
        let mic = try command.sox("nearend_16k.wav", "mic.wav", effects: ["trim", "0", "\(seconds)"])
        let url = server.url(wire == "nls" ? "/ws/v1" : "/api-ws/v1/inference")
        let began = Date()
        let result = try command.afe(["stream", "--mic", mic, "--url", url, "--protocol", wire, "--app-key", "appkey",
                                      "--no-partials"] + (realtime ? ["--realtime"] : []) + extra)
        return Outcome(result: result, seconds: Date().timeIntervalSince(began), server: server)
    }

    /// One `afe:` line naming `code` (e.g. "240313"), exit status 1, within `bound` seconds.
    func expectFailure(_ mode: String, _ code: String, contains: String? = nil, bound: Double = 20,
                       realtime: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        for wire in ["dashscope", "nls"] {
            let outcome = try stream(mode, wire: wire, realtime: realtime)
            let result = outcome.result
            let label = "\(wire) \(mode): \(result.stdout) \(result.stderr)"
            XCTAssertEqual(result.status, 1, label, file: file, line: line)
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, label, file: file, line: line)
            XCTAssertTrue(result.stderr.hasPrefix("afe: ") && result.stderr.contains(code), label, file: file, line: line)
            if let contains { XCTAssertTrue(result.stderr.contains(contains), label, file: file, line: line) }
            XCTAssertFalse(result.stdout.contains("drops: none"), label, file: file, line: line)
            XCTAssertLessThan(outcome.seconds, bound, label, file: file, line: line)
            print("hostile afe \(wire) \(mode): exit \(result.status) after \(String(format: "%.1f", outcome.seconds)) s: \(lines.first ?? "")")
        }
    }

    /// Paced in real time: unpaced, all 4 s and the stop can leave before the server's early finish arrives, and a
    /// finish after the stop is a normal end (CI saw exit 0 that way once).
    func testEarlyTaskFinished() throws {
        try expectFailure("early-finish:after_bytes=6400", "240313", contains: "before the client finished sending audio",
                          realtime: true)
    }

    func testBinaryFrame() throws { try expectFailure("binary", "240313", contains: "binary frame") }

    func testFrameClaimingTwoToTheSixtySecondBytes() throws { try expectFailure("huge-claim", "240313") }

    func testTaskFailed() throws { try expectFailure("task-failed:code=40000000", "240312") }

    func testNoTaskStartedWithinTheStartTimeout() throws { try expectFailure("no-start", "240308") }

    func testHTTP500OnUpgrade() throws { try expectFailure("http:status=500", "240306") }

    /// A finish answered after 30 s fails after the SDK's own 10 s finish_timeout (it was 60 s: afe overrode it).
    func testFinishThatNeverCompletesFailsAfterTheSDKsTenSeconds() throws {
        let outcome = try stream("late-finish:delay_ms=30000")
        XCTAssertEqual(outcome.result.status, 1, outcome.result.stderr)
        XCTAssertTrue(outcome.result.stderr.contains("240309"), outcome.result.stderr)
        XCTAssertLessThan(outcome.seconds, 25, "finish timeout 10 s after the end of 4 s of audio")
        print("hostile afe late-finish 30 s: exit \(outcome.result.status) after \(String(format: "%.1f", outcome.seconds)) s: \(outcome.result.stderr)")
    }

    /// `--finish-timeout` reaches the SDK: a finish answered 6 s after the stop completes with the default 10 s
    /// and fails after a 2 s timeout; 0 ms is out of NUI's range, named on one line.
    func testFinishTimeoutOption() throws {
        let patient = try stream("late-finish:delay_ms=6000")
        XCTAssertEqual(patient.result.status, 0, patient.result.stderr)
        let hasty = try stream("late-finish:delay_ms=6000", extra: ["--finish-timeout", "2000"])
        XCTAssertEqual(hasty.result.status, 1, hasty.result.stderr)
        XCTAssertTrue(hasty.result.stderr.contains("240309"), hasty.result.stderr)
        XCTAssertLessThan(hasty.seconds, patient.seconds, "the 2 s timeout ends it before the 6 s finish")
        let bad = try stream("late-finish:delay_ms=6000", extra: ["--finish-timeout", "0"])
        XCTAssertEqual(bad.result.status, 2, "a usage error: \(bad.result.stderr)")
        XCTAssertEqual(bad.result.stderr.filter { $0 == "\n" }.count, 1, bad.result.stderr)
        XCTAssertTrue(bad.result.stderr.contains("--finish-timeout takes 1000-600000"), bad.result.stderr)
        print("afe --finish-timeout: 6 s finish with 10 s: exit \(patient.result.status) after \(String(format: "%.1f", patient.seconds)) s; "
              + "with 2 s: exit \(hasty.result.status) after \(String(format: "%.1f", hasty.seconds)) s; 0: \(bad.result.stderr)")
    }

    /// A late finish within the timeout completes; afe then closes the WebSocket with a close frame (1000).
    func testLateFinishCompletesAndClosesWithCloseFrame() throws {
        let outcome = try stream("late-finish:delay_ms=2000")
        XCTAssertEqual(outcome.result.status, 0, outcome.result.stderr)
        XCTAssertTrue(outcome.result.stdout.contains("drops: none"), outcome.result.stdout)
        let closes = outcome.server.log().filter { ["client-close", "eof"].contains($0["kind"] as? String ?? "") }
        XCTAssertEqual(closes.first?["kind"] as? String, "client-close", "TCP dropped without a close frame: \(closes)")
        XCTAssertEqual(closes.first?["code"] as? Int, 1000, "\(closes)")
    }

    /// 10,000 results a second for 10 s while 10 s of audio streams in real time: no crash, exit 0, every final
    /// result printed.
    func testFloodOfResults() throws {
        let outcome = try stream("flood:rate=10000,seconds=10", seconds: 10, realtime: true)
        let result = outcome.result
        XCTAssertEqual(result.status, 0, result.stderr)
        let finals = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  [") }.count
        let flood = outcome.server.log().last { $0["kind"] as? String == "flood-done" }
        let sentFinals = flood?["finals"] as? Int ?? -1
        print("hostile afe flood: exit \(result.status) after \(String(format: "%.1f", outcome.seconds)) s; "
              + "\(finals) final lines for \(sentFinals) + 1 finals sent")
        XCTAssertEqual(finals, sentFinals + 1, "every final result printed")
        XCTAssertTrue(result.stdout.contains("summary:"), result.stdout.suffix(500).description)
    }
}
