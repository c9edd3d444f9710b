import Foundation
import SpeechStreaming
import XCTest

/// Every event that comes from a server message keeps that message verbatim (NUI's `nui_get_all_response`),
/// for both protocols: the raw JSON parses and names the server event the typed event came from.
final class EventJSONTests: XCTestCase {
    func testEveryServerEventKeepsItsJSON() throws {
        let server = try ReferenceServer()
        let expected: [WireFamily: [String: Set<String>]] = [
            .dashScope: ["started": ["task-started"], "sentenceStart": ["result-generated"], "partial": ["result-generated"],
                         "sentenceEnd": ["result-generated"], "completed": ["task-finished"]],
            .nls: ["started": ["TranscriptionStarted"], "sentenceStart": ["SentenceBegin"],
                   "partial": ["TranscriptionResultChanged"], "sentenceEnd": ["SentenceEnd"],
                   "completed": ["TranscriptionCompleted"]],
        ]
        for family in WireFamily.allCases {
            let run = try FaultRun.start(family, server: server)
            TestAudio.stream(run.session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
            run.session.stop()
            guard case .completed = run.recorder.waitForEnd() else { return XCTFail("\(family): \(run.recorder.errors)") }
            var seen: Set<String> = []
            for event in run.recorder.events {
                let kind: String
                switch event {
                case .started: kind = "started"
                case .sentenceStart: kind = "sentenceStart"
                case .partialResult: kind = "partial"
                case .sentenceEnd: kind = "sentenceEnd"
                case .completed: kind = "completed"
                default: continue
                }
                seen.insert(kind)
                let raw = try XCTUnwrap(event.rawJSON, "\(family) \(kind)")
                let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(raw.utf8)) as? [String: Any], raw)
                let header = object["header"] as? [String: Any]
                let name = (header?["event"] ?? header?["name"]) as? String ?? ""
                XCTAssertTrue(expected[family]![kind]!.contains(name), "\(family) \(kind) came from \(name): \(raw)")
            }
            XCTAssertEqual(seen, Set(expected[family]!.keys), "\(family): every kind of event was seen")
        }
    }
}
