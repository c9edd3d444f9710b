import AudioFrontEnd
import Foundation
import XCTest

/// `FrontEnd.events` read only after the stream ended: it kept the newest `bufferLimit` events (the finished
/// one last), counted every other, and the delegate still got them all.
final class FrontEndEventsBoundTests: XCTestCase {
    final class Counter: FrontEndDelegate, @unchecked Sendable {
        let lock = NSLock()
        var count = 0
        func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) { lock.withLock { count += 1 } }
    }

    func testAnUnreadSequenceKeepsTheNewestAndCountsTheRest() async throws {
        let frontEnd = try FrontEnd(configuration: FrontEndConfiguration())
        let counter = Counter()
        frontEnd.delegate = counter
        let events = frontEnd.events
        try frontEnd.start()
        let chunk = (0..<160).map { Int16(sin(Double($0) * 0.2) * 2000) }
        for _ in 0..<6000 { // 60 s: a level and an audio event per frame, well past the bound
            var taken = 0
            while taken < chunk.count {
                let result = chunk[taken...].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += result.accepted
                if result.status == .bufferFull { usleep(200) }
            }
        }
        try frontEnd.finish()
        var read = 0
        var last: FrontEndEvent?
        for await event in events {
            read += 1
            last = event
        }
        let delivered = counter.lock.withLock { counter.count }
        XCTAssertGreaterThan(delivered, 2 * FrontEndEvents.bufferLimit)
        XCTAssertEqual(read, FrontEndEvents.bufferLimit, "the newest bufferLimit events were kept")
        XCTAssertEqual(frontEnd.sequenceEventsDropped, delivered - FrontEndEvents.bufferLimit, "every other one counted")
        guard case .finished = last else { return XCTFail("last \(String(describing: last))") }
    }
}
