import AllocationCounter
import Dispatch
import Foundation
import Synchronization
import Threads
import XCTest

/// ``JoinableThread``'s contract, which every owner's stop relies on (the network, event, drain, pull, playback and
/// debug-writer threads): `join()` returns only once the body has returned and what it captured is released; from
/// the thread itself it detaches instead of deadlocking; later calls do nothing.
final class JoinableThreadTests: XCTestCase {
    private final class Captured: Sendable {}

    /// Both cores busy, as in ServiceThreadTests: a thread still finishing after the wait is preempted there.
    func testJoinReturnsAfterTheBodyAndItsCapturesAreGone() throws {
        afe_busy_threads_start(2)
        defer { afe_busy_threads_stop() }
        var stillHeld = 0
        for _ in 0..<200 {
            var captured: Captured? = Captured()
            weak let watched = captured
            let returned = Atomic<Bool>(false)
            let thread = try XCTUnwrap(JoinableThread(name: "JoinableThreadTests") { [captured] in
                _ = captured
                returned.store(true, ordering: .releasing)
            })
            captured = nil
            thread.join()
            XCTAssertTrue(returned.load(ordering: .acquiring))
            if watched != nil { stillHeld += 1 }
        }
        XCTAssertEqual(stillHeld, 0, "captures still held by a thread after join()")
    }

    func testAJoinFromTheThreadItselfDetachesAndLaterJoinsReturn() throws {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<JoinableThread?>(nil)
        let thread = try XCTUnwrap(JoinableThread(name: "JoinableThreadTests") {
            box.withLock { $0 }?.join() // would deadlock if it waited for itself
            done.signal()
        })
        box.withLock { $0 = thread }
        // The body may have run before the box was filled (then it joined nothing): either way it ends.
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "the thread's own join() returned")
        thread.join()
        thread.join()
    }

    func testIsCurrentOnlyOnTheThread() throws {
        let inside = Atomic<Bool>(false)
        let box = Mutex<JoinableThread?>(nil)
        let ready = DispatchSemaphore(value: 0), filled = DispatchSemaphore(value: 0)
        let thread = try XCTUnwrap(JoinableThread(name: "JoinableThreadTests") {
            ready.signal()
            filled.wait()
            usleep(20_000) // the test's join() has begun by now: the thread still knows itself
            inside.store(box.withLock { $0 }?.isCurrent ?? false, ordering: .releasing)
        })
        ready.wait()
        box.withLock { $0 = thread }
        XCTAssertFalse(thread.isCurrent)
        filled.signal()
        thread.join()
        XCTAssertTrue(inside.load(ordering: .acquiring))
        XCTAssertFalse(thread.isCurrent, "0 once joined")
    }
}
