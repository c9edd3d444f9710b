@testable import AudioFrontEnd
import Foundation
import Synchronization
import XCTest

/// The reference history's reader against a producer that keeps overwriting the oldest slots.
final class ReferenceHistoryRaceTests: XCTestCase {
    /// Every sample carries its position (`pattern`); the reader asks for the range the producer is about to
    /// overwrite. What it returns must be either silence (discarded) or exactly the sample of that position: a
    /// slot overwritten while it was copied, and not discarded, shows another position's value. Before the
    /// producer announced the range it overwrites (and the reader fenced its copy), this found torn slots
    /// within a few thousand reads on x86.
    func testReadsNeverReturnAnotherPositionsSamples() throws {
        let history = ReferenceHistory(minimumCapacity: 1024)
        let capacity = history.capacity
        let stop = Atomic<Bool>(false)
        let producerDone = DispatchSemaphore(value: 0)
        let producer = Thread {
            var position = 0
            var chunk = [Int16](repeating: 0, count: 96)
            while !stop.load(ordering: .relaxed) {
                for i in chunk.indices { chunk[i] = Self.pattern(position + i) }
                chunk.withUnsafeBufferPointer { history.append($0) }
                position += chunk.count
            }
            producerDone.signal()
        }
        producer.start()
        var buffer = [Int16](repeating: 0, count: 256)
        var wrong = 0, kept = 0, reads = 0
        let deadline = Date().addingTimeInterval(1.5)
        while Date() < deadline, wrong == 0 {
            let written = history.writePosition
            // The oldest slots: the next appends overwrite them.
            let position = max(0, written - capacity)
            buffer.withUnsafeMutableBufferPointer { history.peek(from: position, into: $0) }
            for (offset, sample) in buffer.enumerated() where sample != 0 {
                kept += 1
                if sample != Self.pattern(position + offset) { wrong += 1 }
            }
            reads += 1
        }
        stop.store(true, ordering: .relaxed)
        producerDone.wait()
        XCTAssertEqual(wrong, 0, "samples of another position returned (\(reads) reads, \(kept) samples kept)")
        XCTAssertGreaterThan(kept, 0, "the reader kept nothing: the test did not exercise the race")
    }

    /// Never zero, so a discarded (silent) slot is told apart from a kept one.
    private static func pattern(_ position: Int) -> Int16 { Int16(position % 32000 + 1) }
}
