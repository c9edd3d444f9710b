import AllocationCounter
import Foundation
@testable import NuiSDK
import Synchronization
import XCTest

/// EVENT_AEC_DATA's hand-off to the callback thread (``CallbackQueue/postSamples(_:)``): one copy into a pooled
/// buffer under one lock, no allocation once the pool is warm, the chunks in order with the other callbacks, the
/// droppable bound kept.
final class CallbackQueuePoolTests: XCTestCase {
    final class Seen: @unchecked Sendable { // written by the callback thread only, read after drain
        var order: [String] = []
    }

    func testChunksCrossWithOneLockAndNoAllocationAfterWarmUpInOrderAndBounded() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let queue = CallbackQueue()
        let seen = Seen()
        queue.setOutputHandler { output in
            switch output {
            case .samples(let samples): seen.order.append("chunk \(samples.first ?? -1) \(samples.count)")
            case .level(let level): seen.order.append("level \(Int(level))")
            }
        }
        let chunks = (0..<1000).map { [Int16](repeating: Int16($0), count: 160) }
        /// The measured sequence: a closure, 1,000 chunks with a level after every 100th, a closure.
        func postAll() -> Int {
            var accepted = 0
            for i in 0..<1000 {
                if chunks[i].withUnsafeBufferPointer({ queue.postSamples($0) }) { accepted += 1 }
                if i % 100 == 0, queue.postLevel(Float(i)) { accepted += 1 }
            }
            return accepted
        }
        // Warm-up: the same sequence, as many chunks waiting at once as the measured part will have.
        queue.suspend()
        queue.post {}
        _ = postAll()
        queue.post {}
        queue.resume()
        queue.drain(timeout: 30)
        seen.order.removeAll()

        queue.suspend()
        queue.post { seen.order.append("first") }
        var locks: Int64 = 0
        afe_thread_counters_start()
        let accepted = postAll()
        let allocations = afe_thread_counters_stop(&locks)
        // Beyond the bound: refused, nothing copied.
        var refused = 0
        for _ in 0..<100 { chunks[7].withUnsafeBufferPointer { if !queue.postSamples($0) { refused += 1 } } }
        XCTAssertFalse(queue.postLevel(1))
        queue.post { seen.order.append("last") } // a terminal callback: never refused
        queue.resume()
        queue.drain(timeout: 30)

        print("1,010 posts: \(allocations) allocations, \(locks) pthread locks; \(refused) refused beyond the bound")
        XCTAssertEqual(accepted, 1010)
        XCTAssertEqual(allocations, 0, "no allocation per chunk once the pool is warm")
        XCTAssertEqual(locks, 1010, "one lock per post")
        XCTAssertEqual(refused, 100 - (CallbackQueue.droppableCapacity - 1010), "the droppable bound holds")
        XCTAssertEqual(seen.order.first, "first")
        XCTAssertEqual(seen.order.last, "last")
        XCTAssertEqual(seen.order.count, 2 + 1010 + CallbackQueue.droppableCapacity - 1010)
        XCTAssertEqual(seen.order[1], "chunk 0 160")
        XCTAssertEqual(seen.order[2], "level 0")
        XCTAssertEqual(seen.order[3], "chunk 1 160")
        XCTAssertEqual(seen.order[1010], "chunk 999 160")
        XCTAssertEqual(seen.order[1011], "chunk 7 160")
        XCTAssertEqual(queue.waiting.droppable, 0, "every buffer went back")
    }
}
