import Foundation
import SpeechStreaming
import XCTest

/// End to end: the bundled double-talk vector's clean near end and its raw mic (near end + echo of the far
/// end) streamed to the reference server's PocketSphinx recognizer. The clean stream is recognized far
/// better: the front end's job is worth doing, and the client carries real speech intact.
final class RecognitionEndToEndTests: XCTestCase {
    /// Words of `text`, lower case, without punctuation.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
    }

    /// Word error rate: (substitutions + deletions + insertions) / reference words (Levenshtein over words).
    static func wordErrorRate(reference: [String], hypothesis: [String]) -> Double {
        var previous = Array(0...hypothesis.count)
        for (i, word) in reference.enumerated() {
            var current = [i + 1] + [Int](repeating: 0, count: hypothesis.count)
            for (j, guess) in hypothesis.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == guess ? 0 : 1))
            }
            previous = current
        }
        return Double(previous[hypothesis.count]) / Double(max(reference.count, 1))
    }

    /// Streams `samples` through a DashScope session and returns the final sentences' text.
    func recognize(_ samples: [Int16], server: ReferenceServer, label: String) throws -> String {
        let session = try SpeechStreamingSession(configuration: DashScopeConfiguration(
            url: WireFamily.dashScope.url(server), apiKey: "key",
            parameters: DashScopeParameters(model: "paraformer-realtime-v2", maxSentenceSilenceMilliseconds: 500),
            connection: ConnectionOptions(finishTimeout: .seconds(60))))
        let recorder = EventRecorder()
        session.delegate = recorder
        try session.start()
        let bytes = samples.withUnsafeBytes { Array($0) }
        TestAudio.stream(session, pieces: TestAudio.chunks(bytes, size: 3200))
        session.stop()
        guard case .completed = recorder.waitForEnd(timeout: 90) else {
            XCTFail("\(label): \(recorder.errors)")
            return ""
        }
        return recorder.sentenceEnds.map(\.text).joined(separator: " ")
    }

    func testCleanNearEndIsRecognizedFarBetterThanTheRawMic() throws {
        let server = try ReferenceServer(["--recognizer", "pocketsphinx"])
        let mic = "doubletalk_ser-5db_16k.wav"
        let entry = try TestVectors.entry(mic)
        let cleanName = try XCTUnwrap(entry["clean_nearend"] as? String)
        let utterances = try XCTUnwrap(TestVectors.entry(cleanName)["utterances"] as? [[String: Any]])
        let reference = utterances.compactMap { $0["text"] as? String }.flatMap(Self.words)
        let clean = try TestVectors.int16(cleanName)
        let raw = try TestVectors.int16(mic)
        XCTAssertEqual(clean.sampleRate, 16000)

        let cleanText = try recognize(clean.samples, server: server, label: "clean near end")
        let rawText = try recognize(raw.samples, server: server, label: "raw mic")
        let cleanWER = Self.wordErrorRate(reference: reference, hypothesis: Self.words(cleanText))
        let rawWER = Self.wordErrorRate(reference: reference, hypothesis: Self.words(rawText))
        let report = "WER clean \(String(format: "%.2f", cleanWER)) ('\(cleanText)'), raw mic \(mic) "
            + "\(String(format: "%.2f", rawWER)) ('\(rawText)'), reference '\(reference.joined(separator: " "))'"
        print(report)
        // Measured: clean 0.19, raw mic 1.70 (the far-end talker's words count as insertions).
        XCTAssertLessThan(cleanWER, 0.4, report)
        XCTAssertGreaterThan(rawWER - cleanWER, 0.5, "the clean stream is recognized far better: \(report)")
    }

    func testWordErrorRate() {
        XCTAssertEqual(Self.wordErrorRate(reference: ["a", "b", "c"], hypothesis: ["a", "b", "c"]), 0)
        XCTAssertEqual(Self.wordErrorRate(reference: ["a", "b", "c"], hypothesis: ["a", "x", "c", "d"]), 2.0 / 3)
        XCTAssertEqual(Self.wordErrorRate(reference: ["a", "b"], hypothesis: []), 1)
        XCTAssertEqual(Self.words("Set a timer, please."), ["set", "a", "timer", "please"])
    }
}
