import Foundation
import SpeechStreaming
import XCTest

/// The streaming client against the hostile server (Scripts/hostile-server): every way a network peer can
/// misbehave ends with one typed error within its bound (Scripts/hostile-server/README.md), nothing is
/// sent after it, and the client never crashes, hangs or buffers without limit.
final class HostilePeerTests: XCTestCase {
    /// Short timeouts so each case resolves in about a second; the bounds below allow for a loaded machine.
    static let quick = ConnectionOptions(connectTimeout: .seconds(2), startTimeout: .seconds(2), finishTimeout: .seconds(2),
                                         pingInterval: .milliseconds(250), responseTimeout: .seconds(1))
    /// The most any case may take from start() to its error with ``quick`` (each timeout is 2 s at most).
    static let bound: TimeInterval = 8

    /// Runs `mode` for each family: start, optionally stream the test bursts and stop, then expect `code`.
    @discardableResult
    func expect(_ mode: String, _ code: SpeechStreamingError.Code, families: [WireFamily] = WireFamily.allCases,
                waitForStart: Bool = true, stream: Bool = true, stop: Bool = false,
                file: StaticString = #filePath, line: UInt = #line) throws -> [SpeechStreamingError] {
        var errors: [SpeechStreamingError] = []
        for family in families {
            let server = try ReferenceServer.hostile(mode)
            let began = Date()
            let run = try FaultRun.start(family, server: server, connection: Self.quick, waitForStart: waitForStart,
                                         file: file, line: line)
            if stream { run.streamBursts() }
            if stop { run.session.stop() }
            let label = "\(family) \(mode)"
            guard let error = run.expectError(code, label, timeout: Self.bound, file: file, line: line) else { continue }
            let waited = Date().timeIntervalSince(began)
            XCTAssertLessThan(waited, Self.bound, "\(label): took \(waited) s", file: file, line: line)
            print("hostile \(label): \(error.code) after \(String(format: "%.2f", waited)) s: \(error.message)")
            errors.append(error)
            run.session.close()
        }
        return errors
    }

    // MARK: Connection and upgrade

    func testNothingListening() throws { try expect("refuse", .connectionRefused, waitForStart: false, stream: false) }

    /// The peer closes before it answers the upgrade: lws says "read failed".
    func testAcceptThenClose() throws { try expect("accept-close", .connectionFailed, waitForStart: false, stream: false) }

    func testWrongAcceptHash() throws { try expect("bad-accept", .handshakeFailed, waitForStart: false, stream: false) }

    func testUpgradeAnsweredWithHTTPStatus() throws {
        for (status, code) in [(200, SpeechStreamingError.Code.handshakeFailed), (401, .unauthorized), (500, .handshakeFailed)] {
            let errors = try expect("http:status=\(status)", code, waitForStart: false, stream: false)
            for error in errors { XCTAssertEqual(error.httpStatus, status, "\(error)") }
        }
    }

    func testSlowHeadersAreCaughtByTheConnectTimeout() throws {
        try expect("slow-headers:interval_ms=300", .connectTimeout, waitForStart: false, stream: false)
    }

    // MARK: Task protocol

    func testRunTaskNeverAnswered() throws { try expect("no-start", .startTimeout, waitForStart: false, stream: false) }

    /// DashScope ignores events of another task id (a reused connection's earlier task), so a server that only
    /// ever answers with a wrong id never starts the task. NLS ids are not checked (Tingwu's differ by design).
    func testWrongTaskId() throws {
        try expect("wrong-task-id", .startTimeout, families: [.dashScope], waitForStart: false, stream: false)
    }

    func testTaskFailed() throws {
        let errors = try expect("task-failed:code=40000000", .taskFailed)
        for error in errors { XCTAssertEqual(error.serverCode, "40000000") }
    }

    /// task-finished / TranscriptionCompleted before the client's finish: an error naming what was not sent.
    func testEarlyTaskFinished() throws {
        let errors = try expect("early-finish:after_bytes=6400", .protocolViolation)
        for error in errors {
            XCTAssertTrue(error.message.contains("before the client finished"), error.message)
            XCTAssertTrue(error.message.contains("bytes of audio sent"), error.message)
        }
    }

    /// A late task-finished (2 s after finish-task, within the 10 s default) completes the task; closing the
    /// session then sends a WebSocket close frame with 1000, not a bare TCP drop (1006).
    func testLateTaskFinishedThenCloseSendsCloseFrame() throws {
        let server = try ReferenceServer.hostile("late-finish:delay_ms=2000")
        let run = try FaultRun.start(.dashScope, server: server)
        run.streamBursts(pause: 0)
        run.session.stop()
        guard case .completed = run.recorder.waitForEnd(timeout: 12) else {
            return XCTFail("late finish: \(String(describing: run.recorder.events.last))")
        }
        run.session.close()
        let closes = try waitForLog(server) { $0["kind"] as? String == "client-close" || $0["kind"] as? String == "eof" }
        XCTAssertEqual(closes.first?["kind"] as? String, "client-close", "the client dropped TCP without a close frame: \(closes)")
        XCTAssertEqual(closes.first?["code"] as? Int, 1000, "\(closes)")
    }

    /// After an error the session closes the connection with a close frame too.
    func testErrorClosesWithCloseFrame() throws {
        let server = try ReferenceServer.hostile("malformed")
        let run = try FaultRun.start(.dashScope, server: server, connection: Self.quick)
        run.streamBursts()
        run.expectError(.malformedMessage, "malformed")
        run.session.close()
        let closes = try waitForLog(server) { $0["kind"] as? String == "client-close" || $0["kind"] as? String == "eof" }
        XCTAssertEqual(closes.first?["code"] as? Int, 1000, "\(closes)")
    }

    // MARK: Messages and frames

    func testMalformedJSON() throws { try expect("malformed", .malformedMessage) }

    /// 100,000 nested arrays (200 kB, under the size limit): Foundation's parser refuses more than 512 levels,
    /// so the message is malformed; no stack overflow.
    func testDeeplyNestedJSON() throws { try expect("nested:depth=100000", .malformedMessage) }

    /// Fields of the wrong type and absurd numbers (1e300, 2^70, Int.max) are ignored or clamped, never a trap;
    /// the last message's event name is a number, which is malformed.
    func testWronglyTypedJSON() throws { try expect("wrong-types", .malformedMessage) }

    func testOversizedMessage() throws {
        try expect("oversized:size=2000000", .oversizedMessage)
        try expect("oversized:size=2000000,fragments=40", .oversizedMessage, families: [.dashScope])
    }

    /// A frame header claiming 2^62 bytes: refused from the header, before anything is buffered.
    func testFrameClaimingTwoToTheSixtySecondBytes() throws { try expect("huge-claim", .oversizedMessage) }

    func testBinaryFrameFromTheServer() throws {
        let errors = try expect("binary:size=320", .protocolViolation)
        for error in errors { XCTAssertTrue(error.message.contains("binary frame of 320 bytes"), error.message) }
    }

    // MARK: Connection loss and silence

    func testCloseFrameMidStream() throws {
        let errors = try expect("close:code=1011", .connectionClosed)
        for error in errors { XCTAssertTrue(error.message.contains("1011"), error.message) }
    }

    func testTCPResetMidStream() throws { try expect("reset", .connectionClosed) }

    func testStallIsCaughtByPings() throws { try expect("stall", .serverNotResponding) }

    /// Waits up to 5 s for log lines matching `match`.
    func waitForLog(_ server: ReferenceServer, _ match: ([String: Any]) -> Bool) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let lines = server.log().filter(match)
            if !lines.isEmpty { return lines }
            usleep(50_000)
        }
        return []
    }
}

/// A server flooding 10,000 results a second for 10 s: no crash, every result delivered or counted as dropped,
/// memory bounded.
final class HostileFloodTests: XCTestCase {
    func testFloodOfResults() throws {
        for family in WireFamily.allCases {
            let server = try ReferenceServer.hostile("flood:rate=10000,seconds=10")
            var options = ConnectionOptions()
            options.finishTimeout = .seconds(20)
            let rssBefore = residentMiB()
            let began = Date()
            let run = try FaultRun.start(family, server: server, connection: options)
            run.streamBursts(pause: 0)
            let flood = try waitForFlood(server)
            run.session.stop()
            let end = run.recorder.waitForEnd(timeout: 60)
            guard case .completed = end else { return XCTFail("\(family) flood: \(String(describing: end))") }
            let results = run.recorder.events.filter {
                switch $0 { case .partialResult, .sentenceEnd: true; default: false }
            }.count
            let statistics = run.session.statistics
            let sent = flood["sent"] as? Int ?? -1
            print("hostile \(family) flood: server sent \(sent) results (+1 final) in \(flood["seconds"] ?? "?") s; "
                  + "delivered \(results), dropped \(statistics.eventsDropped) (delegate behind), "
                  + "stream dropped \(statistics.streamEventsDropped), \(String(format: "%.1f", Date().timeIntervalSince(began))) s, "
                  + "RSS \(rssBefore) → \(residentMiB()) MiB")
            XCTAssertGreaterThan(sent, 50_000, "\(family): the server could not flood")
            // A delegate more than 16,384 events behind (a loaded machine) loses the overflow, counted.
            XCTAssertEqual(results + statistics.eventsDropped, sent + 1, "\(family): every result delivered or counted")
            XCTAssertLessThan(statistics.eventsDropped, sent / 10, "\(family): the delegate kept up with most")
            Thread.sleep(forTimeInterval: 0.3) // the delivery queue yields to the sequence after the delegate
            XCTAssertEqual(run.session.statistics.streamEventsDropped, 0,
                           "\(family): a sequence nobody asked for keeps (and drops) nothing")
            run.session.close()
        }
    }

    private func waitForFlood(_ server: ReferenceServer) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let done = server.log().last(where: { $0["kind"] as? String == "flood-done" }) { return done }
            usleep(200_000)
        }
        throw XCTSkip("the flood did not finish within 30 s")
    }
}
