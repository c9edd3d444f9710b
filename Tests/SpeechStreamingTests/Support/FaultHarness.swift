import Foundation
import SpeechStreaming
import XCTest

/// Runs a session against a reference server with faults, for either protocol, and checks the fault
/// contract: one typed error, nothing sent after it.
enum WireFamily: String, CaseIterable {
    case dashScope, nls

    static let secret = "sk-secret-key-7788"

    func configuration(url: String, secret: String = WireFamily.secret, connection: ConnectionOptions) throws
        -> SpeechStreamingSession {
        switch self {
        case .dashScope:
            return try SpeechStreamingSession(configuration: DashScopeConfiguration(
                url: url, apiKey: secret,
                parameters: DashScopeParameters(maxSentenceSilenceMilliseconds: 400), connection: connection))
        case .nls:
            return try SpeechStreamingSession(configuration: NLSConfiguration(
                url: url, token: secret, appKey: "appkey", maxSentenceSilenceMilliseconds: 400, connection: connection))
        }
    }

    func url(_ server: ReferenceServer) -> String { server.url(self == .dashScope ? "/api-ws/v1/inference" : "/ws/v1") }
}

/// A session, its recorder and its server, for one fault run.
struct FaultRun {
    let session: SpeechStreamingSession
    let recorder: EventRecorder
    let server: ReferenceServer?

    /// Starts a session against `server` (or `url`), waiting for `.started` when `waitForStart`.
    static func start(_ family: WireFamily, server: ReferenceServer?, url: String? = nil,
                      connection: ConnectionOptions = ConnectionOptions(), waitForStart: Bool = true,
                      file: StaticString = #filePath, line: UInt = #line) throws -> FaultRun {
        let session = try family.configuration(url: url ?? family.url(server!), connection: connection)
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        if waitForStart {
            XCTAssertNotNil(recorder.wait { if case .started = $0 { true } else { false } }, "\(family): no .started",
                            file: file, line: line)
        }
        return FaultRun(session: session, recorder: recorder, server: server)
    }

    /// Waits for the error, checks its code, then checks that nothing at all goes out afterwards even though
    /// the caller keeps sending audio and calls stop(); and that the secret appears nowhere in the error.
    @discardableResult
    func expectError(_ code: SpeechStreamingError.Code, _ label: String, timeout: TimeInterval = 15,
                     file: StaticString = #filePath, line: UInt = #line) -> SpeechStreamingError? {
        guard let error = recorder.waitForError(timeout: timeout) else {
            XCTFail("\(label): no error within \(timeout) s; events \(recorder.events.count)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(error.code, code, "\(label): \(error)", file: file, line: line)
        let atError = session.statistics
        let chunk = [UInt8](repeating: 1, count: 3200)
        for _ in 0..<5 {
            XCTAssertEqual(chunk.withUnsafeBytes { session.send(audio: $0) }, .inactive,
                           "\(label): audio refused after the error", file: file, line: line)
        }
        session.stop()
        Thread.sleep(forTimeInterval: 0.3)
        let later = session.statistics
        XCTAssertEqual(later.audioBytesSent, atError.audioBytesSent, "\(label): audio sent after the error", file: file, line: line)
        XCTAssertEqual(later.textMessagesSent, atError.textMessagesSent, "\(label): messages sent after the error",
                       file: file, line: line)
        XCTAssertEqual(recorder.errors.count, 1, "\(label): exactly one error: \(recorder.errors)", file: file, line: line)
        for text in [error.description, error.message, error.rawJSON ?? "", String(reflecting: error)] {
            XCTAssertFalse(text.contains(WireFamily.secret), "\(label): the secret leaked: \(text)", file: file, line: line)
        }
        return error
    }

    /// Streams the test bursts in 100 ms pieces (3200 bytes), pausing `pause` between pieces.
    func streamBursts(pause: TimeInterval = 0.01) {
        for piece in TestAudio.chunks(TestAudio.pcm(), size: 3200) {
            if piece.withUnsafeBytes({ session.send(audio: $0) }) == .inactive { return }
            Thread.sleep(forTimeInterval: pause)
        }
    }
}
