import Foundation
import Synchronization
@testable import VoiceRecognition
import XCTest

/// The event thread waits for a message, a wake or its handler's deadline, never on a fixed poll.
final class EventPumpTests: XCTestCase {
    /// What the handler saw, one entry per round: the batch's size.
    private final class Rounds: @unchecked Sendable {
        let sizes = Mutex<[Int]>([])
        let round = DispatchSemaphore(value: 0)
        func add(_ size: Int) {
            sizes.withLock { $0.append(size) }
            round.signal()
        }
        func waitForRound() -> Bool { round.wait(timeout: .now() + 10) == .success }
    }

    func testWithoutADeadlineTheThreadRunsOnlyForMessagesAndWakes() {
        let pump = EventPump()
        let rounds = Rounds()
        pump.start(name: "test.events") { batch in
            rounds.add(batch.count)
            return batch.contains { if case .forcedCancel = $0 { true } else { false } } ? .ended : .wake(at: nil)
        }
        pump.post(.startRequested(at: .zero)) // no round before the first message
        XCTAssertTrue(rounds.waitForRound())
        pump.wake()
        XCTAssertTrue(rounds.waitForRound(), "a wake runs the handler without a message")
        pump.post(.forcedCancel)
        XCTAssertTrue(rounds.waitForRound())
        XCTAssertTrue(pump.waitUntilEnded(timeout: 10))
        let sizes = rounds.sizes.withLock { $0 }
        // A stale wake-up may add an empty round; no round comes without a message or a wake otherwise.
        XCTAssertEqual(sizes.filter { $0 > 0 }, [1, 1], "\(sizes)")
        XCTAssertLessThanOrEqual(sizes.count, 6, "\(sizes)")
    }

    func testTheHandlersDeadlineRunsItAgainWithAnEmptyBatch() {
        let pump = EventPump()
        let rounds = Rounds()
        let deadlineRounds = Atomic<Int>(0)
        pump.start(name: "test.events") { batch in
            rounds.add(batch.count)
            if batch.isEmpty && deadlineRounds.add(1, ordering: .relaxed).newValue == 3 { return .ended }
            return .wake(at: .now + .milliseconds(5))
        }
        pump.post(.startRequested(at: .zero))
        for _ in 0..<4 { XCTAssertTrue(rounds.waitForRound(), "the message's round, then one per deadline") }
        XCTAssertTrue(pump.waitUntilEnded(timeout: 10))
        XCTAssertEqual(rounds.sizes.withLock { $0 }, [1, 0, 0, 0])
    }

    func testBoundedWaitsEndAtTheirDeadlineAndTheEarliestIsKept() {
        let start = ContinuousClock.now
        let wait = BoundedWait(since: start, limit: .seconds(1))
        XCTAssertFalse(wait.isOver(at: start + .milliseconds(999)))
        XCTAssertTrue(wait.isOver(at: start + .seconds(1)))
        XCTAssertEqual(BoundedWait.earliest(nil, start + .seconds(2), wait.deadline, nil), wait.deadline)
        XCTAssertNil(BoundedWait.earliest(nil, nil))
    }
}
