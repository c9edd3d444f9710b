import Foundation
import SpeechStreaming
import XCTest

/// The client against the reference server's DashScope endpoint: PCM and Ogg Opus, task reuse,
/// context updates, and the deterministic recognizer's sentences.
final class DashScopeSessionTests: XCTestCase {
    func configuration(_ server: ReferenceServer, format: AudioFormat = .pcm,
                       connection: ConnectionOptions = ConnectionOptions()) -> DashScopeConfiguration {
        DashScopeConfiguration(url: server.url(), apiKey: "sk-test-key",
                               parameters: DashScopeParameters(model: "fun-asr-realtime", format: format,
                                                               sampleRate: 16000, maxSentenceSilenceMilliseconds: 400),
                               connection: connection)
    }

    func testPCMTaskRecognizesEveryBurst() throws {
        let server = try ReferenceServer(["--api-key", "sk-test-key"])
        let session = try SpeechStreamingSession(configuration: configuration(server))
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        TestAudio.stream(session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 640))
        session.stop()
        let end = recorder.waitForEnd()
        guard case .completed = end else { return XCTFail("task ended with \(String(describing: end))") }
        let sentences = recorder.sentenceEnds
        XCTAssertEqual(sentences.count, TestAudio.bursts.count, "sentences: \(sentences.map(\.text))")
    }
}
