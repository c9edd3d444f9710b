@testable import AudioFrontEnd
import XCTest

/// When the reference history re-anchors a stream that arrives behind the reads, and when it must not: a late
/// start is moved forward; a stream that was on time and falls a push behind (its thread scheduled late) is not.
final class ReferenceHistoryLatenessTests: XCTestCase {
    private let block = 160
    private var appended = 0
    private var readAt = 0

    private func append(_ history: ReferenceHistory) {
        let samples = [Int16](repeating: 1000, count: block)
        samples.withUnsafeBufferPointer { history.append($0) }
        appended += block
    }

    private func read(_ history: ReferenceHistory) {
        var scratch = [Int16](repeating: 0, count: block)
        scratch.withUnsafeMutableBufferPointer { history.read(from: readAt, into: $0) }
        readAt += block
    }

    /// On time for 10 reads, then one push behind every read for 60 reads (three times the re-anchoring run):
    /// the stream stays where its samples belong. Before the on-time rule it moved a push later every 20 reads.
    func testAStreamThatWasOnTimeIsNotReanchoredWhenItFallsBehind() {
        let history = ReferenceHistory(minimumCapacity: 16384)
        for _ in 0..<10 { append(history); read(history) }
        for _ in 0..<60 { read(history); append(history) }
        XCTAssertEqual(history.writePosition, appended, "re-anchored a stream that had been on time")
    }

    /// The mic runs for 10 reads before the first reference sample, then both flow: the stream lags by a constant
    /// from its start and is moved forward once the run is long enough.
    func testALateStartIsReanchored() {
        let history = ReferenceHistory(minimumCapacity: 16384)
        for _ in 0..<10 { read(history) }
        for _ in 0..<(ReferenceHistory.lateReadsBeforeRealign + 2) { append(history); read(history) }
        XCTAssertGreaterThan(history.writePosition, appended, "a late start was not re-anchored")
        XCTAssertLessThanOrEqual(history.writePosition, readAt + block)
    }

    /// A stream on time, then a stall as long as the re-anchoring run (nothing pushed while the mic runs), then
    /// flowing again behind the reads: the resumed stream is a new start and is re-anchored.
    func testAStreamResumedAfterAStallIsReanchored() {
        let history = ReferenceHistory(minimumCapacity: 16384)
        for _ in 0..<10 { append(history); read(history) }
        for _ in 0..<(ReferenceHistory.lateReadsBeforeRealign + 5) { read(history) }
        let before = appended
        for _ in 0..<(ReferenceHistory.lateReadsBeforeRealign + 2) { append(history); read(history) }
        XCTAssertGreaterThan(history.writePosition, appended, "a stream resumed after a stall was not re-anchored")
        XCTAssertGreaterThan(appended, before)
    }
}
