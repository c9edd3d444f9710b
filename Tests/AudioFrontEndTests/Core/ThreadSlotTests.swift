import Dispatch
import Foundation
import Synchronization
import Threads
import XCTest

/// ``ThreadSlot``, the start/stop shape of the pull, sink-playback and debug-writer threads: one thread at a time,
/// a join that takes it (reopening the slot, or closing it for good), the thread known to itself while its body
/// runs, and a stop racing a start never leaving a thread behind.
final class ThreadSlotTests: XCTestCase {
    func testOneThreadAtATimeAndAClosedSlotStartsNone() {
        let slot = ThreadSlot()
        let release = DispatchSemaphore(value: 0)
        let runs = Atomic<Int>(0)
        XCTAssertTrue(slot.start(name: "ThreadSlotTests") { runs.add(1, ordering: .relaxed); release.wait() })
        XCTAssertFalse(slot.start(name: "ThreadSlotTests") { runs.add(1, ordering: .relaxed) }, "one is held")
        release.signal()
        XCTAssertTrue(slot.join())
        XCTAssertFalse(slot.join(), "taken already")
        XCTAssertTrue(slot.start(name: "ThreadSlotTests") { runs.add(1, ordering: .relaxed) }, "reopened by join()")
        XCTAssertTrue(slot.join(closing: true))
        XCTAssertFalse(slot.start(name: "ThreadSlotTests") { runs.add(1, ordering: .relaxed) }, "closed")
        XCTAssertFalse(slot.join())
        XCTAssertEqual(runs.load(ordering: .relaxed), 2)

        let early = ThreadSlot() // stopped before it started: stays stopped
        XCTAssertFalse(early.join(closing: true))
        XCTAssertFalse(early.start(name: "ThreadSlotTests") { runs.add(1, ordering: .relaxed) })
        XCTAssertEqual(runs.load(ordering: .relaxed), 2)
    }

    func testIsCurrentOnlyInsideTheBodyAndAJoinFromItDetaches() {
        let slot = ThreadSlot()
        let inside = Atomic<Bool>(false), joined = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        XCTAssertTrue(slot.start(name: "ThreadSlotTests") {
            usleep(10_000) // the start has returned and filled the slot
            inside.store(slot.isCurrent, ordering: .relaxed)
            joined.store(slot.join(), ordering: .relaxed) // from the thread itself: detaches, no deadlock
            done.signal()
        })
        XCTAssertFalse(slot.isCurrent)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(inside.load(ordering: .relaxed))
        XCTAssertTrue(joined.load(ordering: .relaxed))
        XCTAssertFalse(slot.join(), "the thread took itself")
    }

    /// A closing join racing the start (as a cancel racing `nui_dialog_start`'s pull thread), in three orders: the
    /// join first, the start first, and both at once. Whichever came first, no thread is left running or unjoined
    /// once both returned.
    func testAClosingJoinRacingAStartLeavesNoThread() {
        let live = Atomic<Int>(0)
        var started = [0, 0, 0]
        for round in 0..<300 {
            let order = round % 3 // 0: join first, 1: start first, 2: at once
            let slot = ThreadSlot()
            let stop = Atomic<Bool>(false)
            let go = DispatchSemaphore(value: 0), joined = DispatchSemaphore(value: 0)
            Thread {
                go.wait()
                stop.store(true, ordering: .releasing)
                slot.join(closing: true)
                joined.signal()
            }.start()
            let start = {
                slot.start(name: "ThreadSlotTests") {
                    live.add(1, ordering: .relaxed)
                    while !stop.load(ordering: .acquiring) { usleep(100) }
                    live.subtract(1, ordering: .relaxed)
                }
            }
            switch order {
            case 0:
                go.signal()
                joined.wait()
                joined.signal()
                if start() { started[0] += 1 }
            case 1:
                if start() { started[1] += 1 }
                go.signal()
            default:
                go.signal()
                if start() { started[2] += 1 }
            }
            XCTAssertEqual(joined.wait(timeout: .now() + 10), .success)
            XCTAssertFalse(slot.join(), "a thread started after the closing join")
            XCTAssertEqual(live.load(ordering: .relaxed), 0, "a thread still running after both returned")
        }
        print("ThreadSlot race: starts that came first, by order (join first, start first, at once): \(started) of 100 each")
        XCTAssertEqual(started[0], 0)
        XCTAssertEqual(started[1], 100)
    }
}
