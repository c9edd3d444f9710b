@testable import SpeechSynthesis
import XCTest

/// The continue-task splitter: the service's 20,000-character limit (a CJK character counting 2).
final class TextSplitterTests: XCTestCase {
    func testCJKCountsTwiceAndPiecesEndAtSentences() {
        let cjk = String(repeating: "你好。", count: 4000) // 12,000 characters, 24,000 as the service counts
        let pieces = TextSplitter.split(cjk)
        XCTAssertEqual(pieces.joined(), cjk)
        XCTAssertEqual(pieces.count, 2)
        XCTAssertTrue(pieces.allSatisfy { TextSplitter.count(Substring($0)) <= 20_000 && $0.hasSuffix("。") })
    }

    func testCutsAtWhiteSpaceThenAnywhere() {
        let words = String(repeating: "word ", count: 5000) // 25,000, no sentence end
        let pieces = TextSplitter.split(words)
        XCTAssertEqual(pieces.joined(), words)
        XCTAssertTrue(pieces[0].hasSuffix(" ") && pieces[0].count <= 20_000)
        let solid = String(repeating: "x", count: 45_000)
        XCTAssertEqual(TextSplitter.split(solid).map(\.count), [20_000, 20_000, 5_000])
        XCTAssertEqual(TextSplitter.split("short"), ["short"])
        XCTAssertEqual(TextSplitter.split("你", limit: 1), ["你"]) // one character over the limit on its own
    }
}
