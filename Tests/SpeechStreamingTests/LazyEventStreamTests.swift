import SpeechStreaming
import XCTest

/// The sequences behind `SpeechStreamingSession.events` and the recognition session's outputs: nothing kept
/// before the first access, at most `limit` unread after it, every drop counted, a finish ends it.
final class LazyEventStreamTests: XCTestCase {
    func testNothingIsKeptBeforeTheFirstAccess() async {
        let lazy = LazyEventStream<Int>(limit: 4)
        for value in 0..<100 { XCTAssertTrue(lazy.yield(value)) }
        XCTAssertEqual(lazy.droppedCount, 0)
        let stream = lazy.stream
        lazy.yield(100)
        lazy.finish()
        let read = await stream.reduce(into: [Int]()) { $0.append($1) }
        XCTAssertEqual(read, [100], "only what came after the first access")
    }

    func testAnUnreadStreamKeepsTheNewestLimitAndCountsTheRest() async {
        for limit in [1, 3, 64] {
            let lazy = LazyEventStream<Int>(limit: limit)
            let stream = lazy.stream
            let count = 1000
            var refused = 0
            for value in 0..<count where !lazy.yield(value) { refused += 1 }
            lazy.finish()
            lazy.yield(-1) // after the finish: ignored
            let read = await stream.reduce(into: [Int]()) { $0.append($1) }
            XCTAssertEqual(read, Array((count - limit)..<count), "limit \(limit): the newest are kept, in order")
            XCTAssertEqual(lazy.droppedCount, count - limit, "limit \(limit)")
            XCTAssertEqual(refused, count - limit, "limit \(limit)")
        }
    }

    /// A prepared stream buffers before anybody asks for it (a late reader misses nothing), but what it drops
    /// while nobody has asked is nobody's loss: counted only once the stream was handed out.
    func testAPreparedStreamCountsItsDropsOnlyOnceAskedFor() async {
        let lazy = LazyEventStream<Int>(limit: 4)
        lazy.prepare()
        for value in 0..<10 { lazy.yield(value) }
        XCTAssertEqual(lazy.droppedCount, 0, "nobody asked for it")
        let stream = lazy.stream
        XCTAssertEqual(lazy.droppedCount, 6, "asked for: the drops are a reader's loss")
        lazy.finish()
        let read = await stream.reduce(into: [Int]()) { $0.append($1) }
        XCTAssertEqual(read, [6, 7, 8, 9], "a reader that came late got the newest it kept")
    }

    /// Before the first access a prepared stream keeps only `keptBeforeAccess` (a session's `results` that an app
    /// never reads held 4096 partials with their raw JSON, ~4 MiB); once asked for, `limit` applies.
    func testAPreparedStreamKeepsOnlyKeptBeforeAccessUntilAskedFor() async {
        let lazy = LazyEventStream<Int>(limit: 8, keptBeforeAccess: 3)
        lazy.prepare()
        for value in 0..<1000 { XCTAssertTrue(lazy.yield(value), "nobody asked: no reader lost anything") }
        XCTAssertEqual(lazy.droppedCount, 0)
        let stream = lazy.stream
        XCTAssertEqual(lazy.droppedCount, 997)
        for value in 1000..<1020 { lazy.yield(value) }
        lazy.finish()
        let read = await stream.reduce(into: [Int]()) { $0.append($1) }
        XCTAssertEqual(read, Array(1012..<1020), "asked for: the newest `limit` unread")
        XCTAssertEqual(lazy.droppedCount, 997 + 3 + 12)
    }

    func testAFirstAccessAfterTheFinishGetsAFinishedStream() async {
        let lazy = LazyEventStream<String>(limit: 8)
        lazy.yield("lost")
        lazy.finish()
        let read = await lazy.stream.reduce(into: [String]()) { $0.append($1) }
        XCTAssertEqual(read, [])
    }
}
