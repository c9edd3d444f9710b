import Foundation
@testable import SpeechStreaming
import XCTest

/// The inputs the fuzz target FuzzServerMessages found crashing (Fuzz/regressions/FuzzServerMessages) and its seed
/// corpus, replayed through the same code as the fuzzer (ServerMessageProbe.run), without libFuzzer.
final class FuzzRegressionTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ kind: String) throws -> [URL] {
        let directory = fuzz.appendingPathComponent("\(kind)/FuzzServerMessages")
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    func replay(_ url: URL) throws -> Int {
        let bytes = try Data(contentsOf: url)
        return bytes.withUnsafeBytes { ServerMessageProbe.run(fuzzInput: $0) }
    }

    /// Each once trapped: Gummy's `sentence_id` Int.max + 1 (DashScopeProtocol.results), an `end_time` of 1e15 ms
    /// or a `time` of 1e300 times the sample rate (ReplayBuffer.byte(ofMilliseconds:)). Now the started report and
    /// the result (with its sentence start) come through.
    func testServerMessagesThatTrappedAreHandled() throws {
        let files = try Self.inputs("regressions")
        XCTAssertGreaterThanOrEqual(files.count, 3)
        for file in files {
            XCTAssertGreaterThanOrEqual(try replay(file), 3, file.lastPathComponent)
        }
    }

    func testSeedCorpusReplays() throws {
        let files = try Self.inputs("corpus")
        XCTAssertGreaterThanOrEqual(files.count, 8)
        var events = 0
        for file in files { events += try replay(file) }
        XCTAssertGreaterThan(events, files.count, "the seeds' flows deliver results")
    }

    /// Out-of-range numbers are clamped when parsed, so the session's sums and products stay in range.
    func testHugeNumbersAreClampedWhenParsed() throws {
        XCTAssertEqual(JSONText.int(NSNumber(value: Int.max)), JSONText.intLimit)
        XCTAssertEqual(JSONText.int(NSNumber(value: -1e300)), -JSONText.intLimit)
        XCTAssertNil(JSONText.int(NSNumber(value: Double.nan)))
        XCTAssertEqual(JSONText.int(NSNumber(value: 3260)), 3260)
    }
}
