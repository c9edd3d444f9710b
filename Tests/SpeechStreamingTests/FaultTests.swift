import Foundation
import SpeechStreaming
import XCTest

/// Every fault gives one typed error within its timeout, never a crash or a hang, and nothing is sent
/// after it; each server-side fault for both protocols. The secret never appears in an error.
final class FaultTests: XCTestCase {
    /// Short timeouts so the timeout faults resolve quickly; no timing is asserted beyond "within the wait".
    static let quick = ConnectionOptions(connectTimeout: .seconds(1), startTimeout: .seconds(1), finishTimeout: .seconds(1),
                                         pingInterval: .milliseconds(250), responseTimeout: .seconds(1))

    func testRefusedConnection() throws {
        let port = try SilentListener.unusedPort()
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: nil, url: "ws://127.0.0.1:\(port)/ws/v1", waitForStart: false)
            run.expectError(.connectionRefused, "\(family) refused")
        }
    }

    func testUnknownHost() throws {
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: nil, url: "ws://no-such-host.invalid:8080/ws/v1", waitForStart: false)
            run.expectError(.unknownHost, "\(family) unknown host")
        }
    }

    func testServerThatNeverAnswersTheUpgrade() throws {
        let listener = try SilentListener()
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: nil, url: "ws://127.0.0.1:\(listener.port)/ws/v1",
                                         connection: Self.quick, waitForStart: false)
            run.expectError(.connectTimeout, "\(family) silent listener")
        }
    }

    func testWrongKeyIsUnauthorizedAndNeverShown() throws {
        let server = try ReferenceServer(["--api-key", "the-right-key"])
        let run = try FaultRun.start(.dashScope, server: server, waitForStart: false)
        let error = run.expectError(.unauthorized, "DashScope wrong key")
        XCTAssertEqual(error?.httpStatus, 401)
        let nls = try FaultRun.start(.nls, server: server, waitForStart: false)
        XCTAssertEqual(nls.expectError(.forbidden, "NLS wrong token")?.httpStatus, 403)
    }

    func testUnauthorizedAndForbiddenAtUpgrade() throws {
        for (fault, code) in [("unauthorized", SpeechStreamingError.Code.unauthorized), ("forbidden", .forbidden)] {
            let server = try ReferenceServer(["--fault", fault])
            for family in WireFamily.allCases {
                let run = try FaultRun.start(family, server: server, waitForStart: false)
                run.expectError(code, "\(family) \(fault)")
            }
        }
    }

    func testTaskFailed() throws {
        let server = try ReferenceServer(["--fault", "task-failed:after_ms=300,code=40000000"])
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server)
            run.streamBursts()
            let error = run.expectError(.taskFailed, "\(family) task-failed")
            XCTAssertEqual(error?.serverCode, family == .dashScope ? "40000000" : "40000000", "\(family)")
            XCTAssertTrue(error?.message.contains("injected fault") == true, "\(family): \(String(describing: error))")
            XCTAssertTrue(error?.rawJSON?.contains(family == .dashScope ? "task-failed" : "TaskFailed") == true)
        }
    }

    func testServerClosingMidStream() throws {
        for how in ["tcp", "ws"] {
            let server = try ReferenceServer(["--fault", "close-mid-stream:after_bytes=32000,how=\(how)"])
            for family in WireFamily.allCases {
                let run = try FaultRun.start(family, server: server)
                run.streamBursts()
                let error = run.expectError(.connectionClosed, "\(family) close-mid-stream \(how)")
                if how == "ws" {
                    XCTAssertTrue(error?.message.contains("1011") == true, "\(family): close code in \(String(describing: error))")
                }
            }
        }
    }

    func testServerStallingIsCaughtByTheFinishTimeout() throws {
        let server = try ReferenceServer(["--fault", "stall:after_ms=0"])
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server, connection: Self.quick)
            run.streamBursts(pause: 0)
            run.session.stop()
            run.expectError(.finishTimeout, "\(family) stall")
        }
    }

    func testNoTaskStartedIsCaughtByTheStartTimeout() throws {
        let server = try ReferenceServer(["--fault", "no-task-started"])
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server, connection: Self.quick, waitForStart: false)
            let chunk = [UInt8](repeating: 0, count: 3200)
            XCTAssertEqual(chunk.withUnsafeBytes { run.session.send(audio: $0) }, .accepted)
            run.expectError(.startTimeout, "\(family) no-task-started")
            XCTAssertEqual(run.session.statistics.audioBytesSent, 0, "\(family): no audio before task-started")
        }
    }

    func testSlowFinishWithinAndBeyondTheConfiguredTimeout() throws {
        let server = try ReferenceServer(["--fault", "slow-finish:delay_ms=1500"])
        for family in WireFamily.allCases {
            let short = try FaultRun.start(family, server: server, connection: Self.quick)
            short.session.stop()
            short.expectError(.finishTimeout, "\(family) slow-finish, finishTimeout 1 s")

            var patient = Self.quick
            patient.finishTimeout = .seconds(5)
            let long = try FaultRun.start(family, server: server, connection: patient)
            long.session.stop()
            let end = long.recorder.waitForEnd()
            guard case .completed = end else { return XCTFail("\(family): finishTimeout 5 s: \(String(describing: end))") }
        }
    }

    func testMalformedMessage() throws {
        let server = try ReferenceServer(["--fault", "malformed:after_ms=100"])
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server)
            let error = run.expectError(.malformedMessage, "\(family) malformed")
            XCTAssertEqual(error?.rawJSON, "this is not JSON {", "\(family)")
        }
    }

    func testOversizedMessage() throws {
        let server = try ReferenceServer(["--fault", "oversized:after_ms=100,size=1500000"])
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server)
            run.expectError(.oversizedMessage, "\(family) oversized 1.5 MB with the 1 MiB limit")
        }
        // The same message within a larger limit is an ordinary (empty) partial result.
        var roomy = ConnectionOptions()
        roomy.maxMessageBytes = 4 << 20
        let run = try FaultRun.start(.dashScope, server: server, connection: roomy)
        XCTAssertNil(run.recorder.waitForError(timeout: 1.5), "1.5 MB within a 4 MiB limit")
        run.session.stop()
        guard case .completed = run.recorder.waitForEnd() else { return XCTFail("\(run.recorder.events.last.map { "\($0)" } ?? "")") }
    }

    func testServerThatStopsAnsweringIsDetectedByPings() throws {
        for family in WireFamily.allCases {
            let server = try ReferenceServer()
            let run = try FaultRun.start(family, server: server, connection: Self.quick)
            server.suspend()
            run.streamBursts(pause: 0.005)
            run.expectError(.serverNotResponding, "\(family) server frozen (SIGSTOP)")
            server.resume()
        }
    }

    /// The server stops reading mid-stream (freeze fault: no pongs, TCP back-pressure, socket left open), or
    /// while no audio flows: the pings find it within the response timeout, and nothing goes out afterwards.
    func testServerThatStopsReadingIsDetectedWithinTheResponseTimeout() throws {
        for (fault, streams) in [("freeze:after_bytes=6400", true), ("freeze:after_ms=200", false)] {
            let server = try ReferenceServer(["--fault", fault])
            for family in WireFamily.allCases {
                let run = try FaultRun.start(family, server: server, connection: Self.quick)
                let began = Date()
                if streams { run.streamBursts(pause: 0.005) }
                let error = run.expectError(.serverNotResponding, "\(family) \(fault)", timeout: 10)
                // Streaming ≈ 0.3 s, then at most the response timeout (1 s) after the last frame received, plus
                // generous slack for a loaded machine: far below the 10 s a missing timeout would take.
                let waited = Date().timeIntervalSince(began)
                XCTAssertLessThan(waited, 4.5, "\(family) \(fault): detected \(waited) s after the start")
                print("\(family) \(fault): serverNotResponding \(String(format: "%.2f", waited)) s after the start "
                      + "(response timeout 1 s, ping every 0.25 s; includes 0.3 s of post-error checks)")
                XCTAssertTrue(error?.message.contains("nothing received") == true, "\(String(describing: error))")
            }
        }
    }

    func testCancelAndCloseWhileConnectingNeverHang() throws {
        let listener = try SilentListener()
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: nil, url: "ws://127.0.0.1:\(listener.port)/ws/v1", waitForStart: false)
            run.session.cancel()
            XCTAssertNoThrow(try run.session.start(), "\(family): a new task after cancel")
            run.session.close()
            XCTAssertTrue(run.recorder.errors.isEmpty, "\(family): cancel and close report nothing: \(run.recorder.errors)")
        }
    }
}
