import SpeechStreaming
import XCTest

/// What the reference server's deterministic recognizer says (refserver/recognizers.py): one word per
/// started 300 ms of a sentence; word j of sentence i is `words[(3 (i − 1) + j) mod 16]`.
enum Deterministic {
    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                        "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]

    /// The final text of sentence `index` (from 1) spanning [begin, end) ms, with the trailing period.
    static func text(index: Int, beginMilliseconds: Int, endMilliseconds: Int) -> String {
        let count = max(0, endMilliseconds - beginMilliseconds - 1) / 300 + 1
        return (0..<count).map { words[(3 * (index - 1) + $0) % 16] }.joined(separator: " ") + "."
    }

    /// The sentences the bursts make: (index, begin ms, end ms, text).
    static func sentences(_ bursts: [(start: Double, end: Double)] = TestAudio.bursts)
        -> [(index: Int, begin: Int, end: Int, text: String)] {
        bursts.enumerated().map { offset, burst in
            let begin = Int((burst.start * 1000).rounded()), end = Int((burst.end * 1000).rounded())
            return (offset + 1, begin, end, text(index: offset + 1, beginMilliseconds: begin, endMilliseconds: end))
        }
    }

    /// Checks final results against the sentences of the test bursts: count, ids, begin and end within
    /// `tolerance` ms, and the text (or, when the server's sentence numbering restarted after a reconnection,
    /// only the number of words, which depends on the duration alone).
    static func check(_ results: [RecognitionResult], tolerance: Int = 0, compareText: Bool = true, label: String,
                      file: StaticString = #filePath, line: UInt = #line) {
        let expected = sentences()
        XCTAssertEqual(results.map(\.sentenceId), expected.map(\.index), "\(label): sentences \(results.map(\.text))",
                       file: file, line: line)
        for (result, want) in zip(results, expected) {
            if compareText {
                XCTAssertEqual(result.text, want.text, "\(label): text of sentence \(want.index)", file: file, line: line)
            } else {
                XCTAssertEqual(result.text.split(separator: " ").count, want.text.split(separator: " ").count,
                               "\(label): words of sentence \(want.index) ('\(result.text)' vs '\(want.text)')", file: file, line: line)
            }
            XCTAssertEqual(Double(result.beginMilliseconds), Double(want.begin), accuracy: Double(tolerance),
                           "\(label): begin of sentence \(want.index)", file: file, line: line)
            XCTAssertEqual(Double(result.endMilliseconds ?? -1), Double(want.end), accuracy: Double(tolerance),
                           "\(label): end of sentence \(want.index)", file: file, line: line)
            XCTAssertTrue(result.isFinal, "\(label)", file: file, line: line)
        }
    }
}
