import Foundation
import SpeechStreaming
import XCTest

/// The session is the lowest layer every surface shares, so it is where secrets leave events: a key the server
/// says back in its results, and the secrets in the URL, never reach the delegate or the stream.
final class RedactionTests: XCTestCase {
    /// The deterministic recognizer's first sentence begins "alpha bravo charlie": a key the server echoes.
    static let key = "alpha bravo"

    func testEventsCarryNoKeyOrURLSecret() throws {
        let server = try ReferenceServer(["--api-key", Self.key])
        defer { server.stop() }
        let url = server.url() + "?token=tok-Secret-42&lang=en"
        let parameters = DashScopeParameters(model: "fun-asr-realtime", format: .pcm, sampleRate: 16000,
                                             maxSentenceSilenceMilliseconds: 400)
        let session = try SpeechStreamingSession(configuration: DashScopeConfiguration(url: url, apiKey: Self.key,
                                                                                        parameters: parameters))
        defer { session.close() }
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 640))
        session.stop()
        guard case .completed = recorder.waitForEnd() else { return XCTFail("no completion: \(recorder.events)") }
        let first = try XCTUnwrap(recorder.sentenceEnds.first)
        XCTAssertTrue(first.text.hasPrefix("*** charlie"), "the echoed key masked: \(first.text)")
        let texts = recorder.events.flatMap { event -> [String] in
            switch event {
            case .partialResult(let r), .sentenceEnd(let r): [r.text, r.rawJSON]
            default: [event.rawJSON ?? ""]
            }
        }
        for secret in [Self.key, "tok-Secret-42"] {
            XCTAssertTrue(texts.filter { $0.contains(secret) }.isEmpty, "\(secret) in \(texts.filter { $0.contains(secret) }.prefix(2))")
        }
    }
}
