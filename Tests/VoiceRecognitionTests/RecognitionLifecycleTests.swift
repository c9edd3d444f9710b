import AudioFrontEnd
import Foundation
import SpeechStreaming
@_spi(Testing) import VoiceRecognition
import XCTest

/// Finish, cancel (forced or not), errors, the mic-silence watchdog, calls from the handler, misuse.
final class RecognitionLifecycleTests: XCTestCase {
    /// The double-talk vector's first `seconds` (near-end speech from 3.03 s) and its reference.
    static func audio(seconds: Double) throws -> (mic: ArraySlice<Int16>, reference: ArraySlice<Int16>) {
        let count = Int(seconds * 16000)
        return (try TestVectors.int16(RecognitionFlowTests.vector).samples.prefix(count),
                try TestVectors.int16("farend_16k.wav").samples.prefix(count))
    }

    /// In the first six seconds the user says one sentence (3.03–4.83 s): exactly one final result begins in it.
    /// The only other sentence allowed is the first echo's onset (0.44 s), which reaches the recognizer before the
    /// canceller has converged on it (about 150 ms with the barge-in chain) and must end within the first second.
    static func checkOnlyTheUsersSentence(_ finals: [RecognitionResult], _ label: String,
                                          file: StaticString = #filePath, line: UInt = #line) {
        let user = finals.filter { (2900..<4830).contains($0.beginMilliseconds) }
        XCTAssertEqual(user.count, 1, "\(label): \(finals.map(\.text))", file: file, line: line)
        let others = finals.filter { !user.contains($0) }
        XCTAssertTrue(others.allSatisfy { ($0.endMilliseconds ?? .max) <= 1000 },
                      "\(label): sentences outside the user's: \(others.map { ($0.beginMilliseconds, $0.endMilliseconds) })",
                      file: file, line: line)
    }

    func makeCore(_ server: ReferenceServer, wire: Wire = .dashScope, clock: any RecognitionClock = SystemRecognitionClock())
        throws -> (RecognitionCore, EventLog) {
        let core = try RecognitionCore(configuration: RecognitionConfiguration(service: wire.service(server),
                                                                               queueFullPolicy: .wait), clock: clock)
        let log = EventLog()
        log.attach(to: core)
        return (core, log)
    }

    func testForcedCancelCompletesAtOnceWithoutTheServer() throws {
        let server = try ReferenceServer()
        let (core, log) = try makeCore(server)
        try core.start()
        XCTAssertNotNil(log.wait { if case .started = $0 { true } else { false } })
        let audio = try Self.audio(seconds: 4.5)
        Feed.push(core, mic: audio.mic, reference: audio.reference)
        server.suspend() // the service says nothing more: completion cannot come from it
        defer { server.resume() }
        let cancelled = Date()
        core.cancel(force: true)
        let end = log.waitForEnd(timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 4, "not waiting for the silent service (its timeouts are 10 s)")
        guard case .completed(let summary) = end else { return XCTFail("ended with \(String(describing: end))") }
        XCTAssertEqual(summary.ending, .cancelled)
        XCTAssertNil(summary.timeToComplete)
        let count = log.events.count
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(log.events.count, count, "nothing after completed")
        XCTAssertTrue(log.events.last!.isTerminal)
        XCTAssertEqual(core.pushMic(samples: audio.mic.withUnsafeBufferPointer { $0 }).status, .notRunning)
        XCTAssertFalse(core.isRunning)
    }

    func testCancelWithoutForceCompletesAfterTheFinalResult() throws {
        for wire in Wire.allCases {
            let server = try ReferenceServer()
            let (core, log) = try makeCore(server, wire: wire)
            try core.start()
            let audio = try Self.audio(seconds: 6)
            core.setPlaying(true)
            Feed.push(core, mic: audio.mic, reference: audio.reference)
            core.cancel(force: false)
            let end = log.waitForEnd()
            guard case .completed(let summary) = end else {
                let names = log.events.map(\.name).filter { !["aec_data", "level", "telemetry"].contains($0) }
                let drops = log.events.last { if case .drops = $0 { true } else { false } }.map(\.json) ?? "no drops"
                XCTFail("\(wire): ended with \(String(describing: end)) after \(names); \(core.statistics); \(drops)")
                continue
            }
            XCTAssertEqual(summary.ending, .finished, "\(wire)")
            // The user's "Set a timer for ten minutes." (3.03–4.83 s) came back as a final result before completion.
            Self.checkOnlyTheUsersSentence(log.finals, "\(wire)")
            XCTAssertNotNil(summary.timeToComplete)
            XCTAssertNotNil(summary.timeToStart)
            XCTAssertThrowsError(try core.finish()) { XCTAssertEqual($0 as? RecognitionError, .invalidState("finish() needs a running session, this one is ended")) }
        }
    }

    func testRefusedConnectionIsATypedError() async throws {
        let server = try ReferenceServer()
        let url = Wire.dashScope.service(server)
        server.stop() // nothing listens at its port now
        let session = try RecognitionSession(configuration: RecognitionConfiguration(service: url))
        let events = session.events // made on first access: before start()
        do {
            try await session.start()
            XCTFail("start() succeeded with nothing listening")
        } catch let error as RecognitionError {
            guard case .service(let cause) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(cause.code, .connectionRefused)
            XCTAssertFalse(error.message.contains("sk-test-key-4242"))
        }
        var last: RecognitionEvent?
        for await event in events { last = event }
        guard case .error(.service(let cause)) = last else { return XCTFail("last event \(String(describing: last))") }
        XCTAssertEqual(cause.code, .connectionRefused)
        do {
            _ = try await session.finish()
            XCTFail("finish() after the error")
        } catch let error as RecognitionError {
            XCTAssertEqual(error, .invalidState("finish() needs a running session, this one is ended"))
        }
    }

    func testMicSilenceIsReportedOnTheInjectedClock() throws {
        let server = try ReferenceServer()
        let clock = ManualRecognitionClock()
        let (core, log) = try makeCore(server, clock: clock)
        func silences() -> [Int] { log.events.compactMap { if case .micSilent(let ms) = $0 { ms } else { nil } } }
        try core.start()
        let audio = try Self.audio(seconds: 1)
        Feed.push(core, mic: audio.mic.prefix(1600))
        Thread.sleep(forTimeInterval: 0.5) // the watchdog sees the push (it polls every 50 ms; margin for a slow machine)
        clock.advance(by: .milliseconds(1900))
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(silences(), [], "1.9 s without audio is not yet a mic error")
        clock.advance(by: .milliseconds(200))
        XCTAssertNotNil(log.wait(timeout: 2) { if case .micSilent = $0 { true } else { false } })
        XCTAssertEqual(silences(), [2100])
        clock.advance(by: .seconds(5))
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(silences().count, 1, "once per silent stretch")
        Feed.push(core, mic: audio.mic.prefix(1600)) // audio again re-arms it
        Thread.sleep(forTimeInterval: 0.5)
        clock.advance(by: .seconds(2))
        var seen = 0
        XCTAssertNotNil(log.wait(timeout: 2) { if case .micSilent = $0 { seen += 1 }; return seen == 2 })
        try core.finish()
        clock.advance(by: .seconds(10))
        XCTAssertNotNil(log.waitForEnd())
        XCTAssertEqual(silences().count, 2, "no mic error after finish")
    }

    /// The handler pushes and finishes from inside its own callback: no deadlock, everything arrives.
    func testTheHandlerMayCallBackIntoTheSession() throws {
        let server = try ReferenceServer()
        let (core, log) = try makeCore(server, wire: .nls)
        let audio = try Self.audio(seconds: 6)
        log.onEvent = { [core] event in
            guard case .started = event else { return }
            Feed.push(core, mic: audio.mic, reference: audio.reference)
            try? core.finish()
        }
        try core.start()
        guard case .completed(let summary) = log.waitForEnd(timeout: 30) else { return XCTFail("\(log.events.suffix(3))") }
        XCTAssertEqual(summary.ending, .finished)
        XCTAssertEqual(summary.frontEnd?.micSamplesPushed, audio.mic.count)
        Self.checkOnlyTheUsersSentence(log.finals, "handler calls back")
    }

    /// Context updates reach the running DashScope task as continue-task; NLS has none (a typed error).
    func testContextUpdatesReachTheService() throws {
        let server = try ReferenceServer()
        guard case .dashScope(var dashScope) = Wire.dashScope.service(server) else { return XCTFail() }
        dashScope.parameters.model = "fun-asr-realtime" // a model that takes context
        let core = try RecognitionCore(configuration: RecognitionConfiguration(service: .dashScope(dashScope)))
        let log = EventLog()
        log.attach(to: core)
        try core.start()
        try core.updateContext([ContextMessage(role: .user, text: "set a timer")])
        let audio = try Self.audio(seconds: 2)
        Feed.push(core, mic: audio.mic)
        XCTAssertNoThrow(try core.finish(), "\(log.events.last.map(\.json) ?? "")")
        guard case .completed = log.waitForEnd() else { return XCTFail("\(log.events.suffix(2))") }
        let continued = server.receivedMessages().first { ($0["header"] as? [String: Any])?["action"] as? String == "continue-task" }
        let context = ((continued?["payload"] as? [String: Any])?["input"] as? [String: Any])?["context"] as? [[String: Any]]
        XCTAssertEqual((context?.first?["content"] as? [[String: Any]])?.first?["text"] as? String, "set a timer")

        let (nls, _) = try makeCore(server, wire: .nls)
        try nls.start()
        XCTAssertThrowsError(try nls.updateContext([ContextMessage(role: .user, text: "x")])) {
            guard case .service(let error) = $0 as? RecognitionError else { return XCTFail("\($0)") }
            XCTAssertEqual(error.code, .invalidState)
        }
        nls.cancel(force: true)
    }

    func testMisuseIsRefusedWithTypedErrors() throws {
        let server = try ReferenceServer()
        let (core, _) = try makeCore(server)
        XCTAssertThrowsError(try core.finish()) { XCTAssertEqual($0 as? RecognitionError, .invalidState("finish() needs a running session, this one is created")) }
        try core.start()
        XCTAssertThrowsError(try core.start()) { XCTAssertEqual($0 as? RecognitionError, .invalidState("start() needs a new session, this one is running")) }
        core.cancel(force: true)
        core.cancel(force: true) // twice is fine

        // A forced cancel before start still ends the async session's events.
        let unstarted = try RecognitionSession(configuration: RecognitionConfiguration(service: Wire.nls.service(server)))
        let unstartedEvents = unstarted.events
        unstarted.cancel()
        let ends = LockedValue<[RecognitionEvent]>([])
        let done = expectation(description: "events end")
        Task {
            for await event in unstartedEvents { ends.update { $0.append(event) } }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        guard case .completed(let summary) = ends.get().last else { return XCTFail("\(ends.get())") }
        XCTAssertEqual(summary.ending, .cancelled)
        XCTAssertThrowsError(try unstarted.core.start())

        var opus = RecognitionConfiguration(service: Wire.dashScope.service(server), audioFormat: .opus, sampleRate: 8000)
        XCTAssertThrowsError(try RecognitionCore(configuration: opus)) {
            guard case .invalidConfiguration(let message) = $0 as? RecognitionError else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("16000"), message)
        }
        opus.sampleRate = 16000
        opus.frontEnd.processingRate = 8000 // with AEC on
        XCTAssertThrowsError(try RecognitionCore(configuration: opus)) {
            guard case .invalidConfiguration = $0 as? RecognitionError else { return XCTFail("\($0)") }
        }
        var pcm = RecognitionConfiguration(service: Wire.dashScope.service(server))
        pcm.frontEnd.processingRate = 8000
        XCTAssertThrowsError(try RecognitionCore(configuration: pcm)) {
            guard case .frontEnd(let error) = $0 as? RecognitionError else { return XCTFail("\($0)") }
            XCTAssertEqual(error.code, .unsupportedSampleRate)
        }
        let badKey = RecognitionConfiguration(service: .dashScope(DashScopeConfiguration(apiKey: "")))
        XCTAssertThrowsError(try RecognitionCore(configuration: badKey)) {
            guard case .service(let error) = $0 as? RecognitionError else { return XCTFail("\($0)") }
            XCTAssertEqual(error.code, .invalidConfiguration)
        }
    }
}
