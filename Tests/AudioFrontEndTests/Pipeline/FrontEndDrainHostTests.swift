import Foundation
import Synchronization
import XCTest
@testable import AudioFrontEnd
import Threads

/// A front end drained by a ``FrontEndDrainHost`` (issue 13 part 3, step 1): no drain thread of its own; its
/// events reach the delegate only in the host's rounds, on the host's thread, in order and whole; `finish()` from
/// another thread returns once a round delivered the end; a cancelled front end is ended and detached in the next
/// round; the host does not keep a front end alive.
final class FrontEndDrainHostTests: XCTestCase {
    /// Records each event and the thread it came on.
    final class ThreadCollector: FrontEndDelegate, @unchecked Sendable {
        let collector = FrontEndCollector()
        let threads = Mutex<Set<UInt>>([])
        func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
            _ = threads.withLock { $0.insert(currentThreadKey()) }
            collector.frontEnd(frontEnd, didProduce: event)
        }
    }

    /// Runs `host`'s rounds on a thread of its own until stopped; returns that thread's key.
    final class HostThread: @unchecked Sendable {
        let host: FrontEndDrainHost
        let stop = Atomic<Bool>(false)
        let key = Atomic<UInt>(0)
        private let done = DispatchSemaphore(value: 0)
        init(_ host: FrontEndDrainHost) {
            self.host = host
            let thread = Thread { [self] in
                key.store(currentThreadKey(), ordering: .releasing)
                while !stop.load(ordering: .acquiring) {
                    host.wait(milliseconds: 50)
                    host.runRounds()
                }
                done.signal()
            }
            thread.start()
        }
        func end() {
            stop.store(true, ordering: .releasing)
            host.signal()
            done.wait()
        }
    }

    func testEventsComeOnlyInTheHostsRoundsOnItsThreadWholeAndInOrder() throws {
        let host = FrontEndDrainHost()
        let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain(), host: host)
        let delegate = ThreadCollector()
        frontEnd.delegate = delegate
        try frontEnd.start()
        XCTAssertTrue(frontEnd.hasHostedDrain)
        let mic = (0..<16_000).map { Int16(truncatingIfNeeded: $0 &* 37 % 20_000 - 10_000) }
        for offset in stride(from: 0, to: 3_200, by: 160) { // 200 ms, well inside the event rings
            let result = mic[offset..<offset + 160].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            XCTAssertEqual(result.accepted, 160)
        }
        usleep(100_000)
        XCTAssertTrue(delegate.collector.events.isEmpty, "no drain thread: nothing is delivered without a round")

        let hostThread = HostThread(host)
        for offset in stride(from: 3_200, to: mic.count, by: 160) {
            let result = mic[offset..<offset + 160].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            XCTAssertEqual(result.accepted, 160)
        }
        let summary = try frontEnd.finish() // another thread: waits for the host's round to deliver the end
        XCTAssertNotNil(delegate.collector.summary, "finish() returned after the finished event was delivered")
        XCTAssertEqual(delegate.collector.audio, mic, "the plain chain's output is the input, whole and in order")
        XCTAssertEqual(summary.outputSamples, mic.count)
        XCTAssertEqual(delegate.threads.withLock { $0 }, [hostThread.key.load(ordering: .acquiring)],
                       "every event on the host's thread")
        for _ in 0..<100 where host.hasAttached { usleep(10_000) }
        XCTAssertFalse(host.hasAttached, "the finished front end was detached")
        hostThread.end()
    }

    func testACancelledFrontEndIsEndedInTheNextRoundAndNotKeptAlive() throws {
        let host = FrontEndDrainHost()
        weak var released: FrontEnd?
        let delegate = ThreadCollector()
        do {
            let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain(), host: host)
            released = frontEnd
            frontEnd.delegate = delegate
            try frontEnd.start()
            let mic = [Int16](repeating: 100, count: 1_600)
            _ = mic.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            frontEnd.cancel() // does not wait: nothing drains until a round
            XCTAssertTrue(host.hasAttached, "attached until a round ends it")
            host.runRounds() // this thread becomes the host's: the cancelled drain delivers what was queued, ends
            XCTAssertFalse(host.hasAttached, "ended and detached in the round after the cancel")
            XCTAssertEqual(delegate.collector.audio.count, 1_600, "what was queued before the cancel was delivered")
            frontEnd.waitUntilDrained() // on the host's thread: at once
        }
        XCTAssertNil(released, "the host does not keep a front end alive")

        weak var dropped: FrontEnd?
        do { // let go while running, without cancel: the next round detaches it
            let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain(), host: host)
            dropped = frontEnd
            try frontEnd.start()
        }
        XCTAssertNil(dropped)
        host.runRounds()
        XCTAssertFalse(host.hasAttached)
    }
}
