import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition
import XCTest

/// `RecognitionSession` against the hostile server (Scripts/hostile-server): a representative subset of its
/// modes ends with a typed error, the audio that did not reach the service is counted as dropped, and a flood
/// of results is delivered in full.
final class HostilePeerRecognitionTests: XCTestCase {
    static let quick = ConnectionOptions(connectTimeout: .seconds(2), startTimeout: .seconds(2), finishTimeout: .seconds(2),
                                         pingInterval: .milliseconds(250), responseTimeout: .seconds(1))

    static func session(_ server: ReferenceServer, _ wire: Wire, connection: ConnectionOptions = quick) throws -> RecognitionSession {
        let url = server.url(wire == .dashScope ? "/api-ws/v1/inference" : "/ws/v1")
        let service: RecognitionConfiguration.Service = switch wire {
        case .dashScope: .dashScope(DashScopeConfiguration(url: url, apiKey: "sk-hostile-0001", connection: connection))
        case .nls: .nls(NLSConfiguration(url: url, token: "hostile-token-0001", appKey: "appkey", connection: connection))
        }
        return try RecognitionSession(configuration: RecognitionConfiguration(service: service, reportsAudio: false))
    }

    /// Streams `seconds` of the near-end vector (10 ms pushes, at most `speed` × real time) while the session runs.
    static func push(_ session: RecognitionSession, seconds: Double, speed: Double = 4) {
        guard let samples = try? TestVectors.int16("nearend_16k.wav").samples else { return }
        let count = min(samples.count, Int(seconds * 16000))
        let began = Date()
        for offset in stride(from: 0, to: count, by: 160) {
            let result = samples[offset..<min(offset + 160, count)].withUnsafeBufferPointer { session.pushMic(samples: $0) }
            if result.status == .notRunning { return }
            let due = Double(offset) / 16000 / speed - Date().timeIntervalSince(began)
            if due > 0 { usleep(UInt32(due * 1e6)) }
        }
    }

    func run(_ mode: String, _ wire: Wire, connection: ConnectionOptions = quick, seconds: Double = 3, speed: Double = 4)
        async throws -> (events: [RecognitionEvent], outcome: Result<RecognitionSummary, RecognitionError>) {
        let server = try ReferenceServer.hostile(mode)
        let session = try Self.session(server, wire, connection: connection)
        let events = session.events // made on first access: before start()
        let collector = Task { await events.reduce(into: [RecognitionEvent]()) { $0.append($1) } }
        var outcome: Result<RecognitionSummary, RecognitionError>
        do {
            try await session.start()
            let pusher = Thread { Self.push(session, seconds: seconds, speed: speed) }
            pusher.start()
            while !pusher.isFinished { try await Task.sleep(for: .milliseconds(20)) }
            outcome = .success(try await session.finish())
        } catch let error as RecognitionError {
            outcome = .failure(error)
        }
        return (await collector.value, outcome)
    }

    func expectService(_ code: SpeechStreamingError.Code, _ mode: String, file: StaticString = #filePath,
                       line: UInt = #line) async throws -> [RecognitionEvent] {
        var all: [RecognitionEvent] = []
        for wire in Wire.allCases {
            let began = Date()
            let (events, outcome) = try await run(mode, wire)
            guard case .failure(.service(let error)) = outcome else {
                XCTFail("\(wire) \(mode): \(outcome)", file: file, line: line)
                continue
            }
            XCTAssertEqual(error.code, code, "\(wire) \(mode): \(error)", file: file, line: line)
            XCTAssertLessThan(Date().timeIntervalSince(began), 8, "\(wire) \(mode)", file: file, line: line)
            guard case .error = events.last else { XCTFail("\(wire) \(mode): last \(String(describing: events.last))"); continue }
            print("hostile RecognitionSession \(wire) \(mode): \(error.code) \(error.message); drops \(drops(events))")
            all += events
        }
        return all
    }

    /// The last drops reported before the end.
    func drops(_ events: [RecognitionEvent]) -> RecognitionDrops {
        events.compactMap { if case .drops(let d) = $0 { d } else { nil } }.last ?? RecognitionDrops()
    }

    /// Early task-finished is an error (never a completion with "drops: none"); the error counts what went out
    /// and what was queued, and pushes after it return `.notRunning`, so the caller knows the rest was not sent.
    func testEarlyTaskFinishedIsAnErrorAndCountsTheAudioNotSent() async throws {
        for wire in Wire.allCases {
            let (events, outcome) = try await run("early-finish:after_bytes=6400", wire)
            guard case .failure(.service(let error)) = outcome, error.code == .protocolViolation else {
                XCTFail("\(wire): \(outcome)")
                continue
            }
            print("hostile RecognitionSession \(wire) early-finish: \(error.message); drops \(drops(events).audioBytesNotSent) B")
            XCTAssertFalse(events.contains { if case .completed = $0 { true } else { false } }, "\(wire): not a completion")
            XCTAssertTrue(error.message.contains("bytes of audio sent") && error.message.contains("queued bytes not sent"),
                          error.message)
        }
    }

    func testBinaryFrame() async throws { _ = try await expectService(.protocolViolation, "binary") }
    func testFrameClaimingTwoToTheSixtySecondBytes() async throws { _ = try await expectService(.oversizedMessage, "huge-claim") }
    func testWronglyTypedJSON() async throws { _ = try await expectService(.malformedMessage, "wrong-types") }
    func testTCPReset() async throws { _ = try await expectService(.connectionClosed, "reset") }
    func testStall() async throws { _ = try await expectService(.serverNotResponding, "stall") }

    /// 10,000 results a second for 10 s while 10 s of audio streams in real time: the session completes with
    /// every final result in its summary, in order; memory stays bounded (the unread `events` of the streaming
    /// client are not kept: RecognitionCore takes them through the delegate only).
    func testFloodOfResults() async throws {
        var options = ConnectionOptions()
        options.finishTimeout = .seconds(20)
        let before = residentMiB()
        let (events, outcome) = try await run("flood:rate=10000,seconds=10", .dashScope, connection: options, seconds: 10,
                                              speed: 1)
        guard case .success(let summary) = outcome else { return XCTFail("flood: \(outcome)") }
        let finals = events.filter { if case .finalResult = $0 { true } else { false } }.count
        let partials = events.filter { if case .partialResult = $0 { true } else { false } }.count
        print("hostile RecognitionSession flood: \(finals) finals, \(partials) partials delivered; summary "
              + "\(summary.sentences.count) sentences; drops \(summary.drops); RSS \(before) → \(residentMiB()) MiB")
        XCTAssertGreaterThan(finals, 5000)
        XCTAssertEqual(summary.sentences.count, finals)
        let ids = summary.sentences.map(\.sentenceId)
        XCTAssertEqual(zip(ids, ids.dropFirst()).filter { $0 >= $1 }.count, 0, "final results in order")
    }
}

/// A flood read by a consumer slower than the server: the bounded queues drop and count, memory stays bounded.
final class HostileSlowConsumerTests: XCTestCase {
    func testFloodReadSlowlyDropsAndCountsWithBoundedMemory() async throws {
        let server = try ReferenceServer.hostile("flood:rate=10000,seconds=10")
        var options = ConnectionOptions()
        options.finishTimeout = .seconds(30)
        let session = try HostilePeerRecognitionTests.session(server, .dashScope, connection: options)
        let before = residentMiB()
        let peak = LockedValue(before)
        // About 2,000 events a second: a fifth of the flood.
        let events = session.events
        let consumer = Task { () -> (results: Int, last: RecognitionEvent?) in
            var results = 0
            var last: RecognitionEvent?
            for await event in events {
                switch event { case .partialResult, .finalResult: results += 1; default: break }
                last = event
                usleep(500)
                if results % 1000 == 0 { peak.update { $0 = max($0, residentMiB()) } }
            }
            return (results, last)
        }
        try await session.start()
        let pusher = Thread { HostilePeerRecognitionTests.push(session, seconds: 10, speed: 1) }
        pusher.start()
        while !pusher.isFinished { try await Task.sleep(for: .milliseconds(50)) }
        let summary = try await session.finish()
        let (results, last) = await consumer.value
        let sent = (server.log().last { $0["kind"] as? String == "flood-done" }?["sent"] as? Int ?? -1) + 1
        print("hostile RecognitionSession slow consumer: \(results) of \(sent) results read, \(summary.drops.eventsDropped) "
              + "events dropped and counted; RSS \(before) → peak \(peak.get()) MiB")
        guard case .completed = last else { return XCTFail("the end is never dropped: \(String(describing: last))") }
        XCTAssertGreaterThan(summary.drops.eventsDropped, 0, "a consumer this slow must lose events, counted")
        XCTAssertGreaterThanOrEqual(results + summary.drops.eventsDropped, sent, "every result read or counted")
        XCTAssertLessThan(peak.get() - before, 96, "bounded buffering (16,384 events per queue)")
    }
}
