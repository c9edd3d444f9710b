import AllocationCounter
import AudioFrontEnd
import Dispatch
import Foundation
@testable import VoiceRecognition
import XCTest

/// The session's event thread (``EventPump``): what a producer pays to post while the thread is busy.
final class EventPumpTests: XCTestCase {
    /// A drain thread posts a dialog's telemetry and speech events while the event thread is held off (a loaded
    /// machine, a slow handler): up to ``EventPump/reservedMessages`` waiting messages cost the poster no allocation
    /// (the queue's growth landed on the front end's drain thread, seen as 2 allocations in OutputTapTests under load).
    func testPostingWhileTheThreadIsHeldDoesNotAllocate() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let pump = EventPump()
        let entered = DispatchSemaphore(value: 0), hold = DispatchSemaphore(value: 0)
        let handled = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var batches = 0, messages = 0
        pump.start(name: "EventPumpTests") { batch in
            batches += 1
            messages += batch.count
            if batches == 1 {
                entered.signal()
                hold.wait()
            }
            if messages == EventPump.reservedMessages + 1 { handled.signal() }
            return false
        }
        pump.post(.frontEnd(.speechStarted(milliseconds: 0)))
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success, "the thread took the first message")
        afe_allocation_counter_start()
        for k in 1...EventPump.reservedMessages { pump.post(.frontEnd(.speechEnded(milliseconds: 10 * k))) }
        let allocations = afe_allocation_counter_stop()
        hold.signal()
        XCTAssertEqual(handled.wait(timeout: .now() + 10), .success, "every message was handled")
        pump.stop()
        XCTAssertTrue(pump.waitUntilEnded(timeout: 10))
        XCTAssertEqual(allocations, 0, "\(EventPump.reservedMessages) posts while the thread was held")
    }

    /// ``EventPump/waitUntilEnded(timeout:)`` returns once the thread has returned: nothing `handle` captured
    /// (the dialog's processor, its core) is still held by the pump thread, so a program may exit right after
    /// `nui_release` (a detached thread once still held it there; LeakSanitizer saw a weak reference's side table).
    /// Both cores are kept busy so that a thread finishing after the wait would often be preempted there.
    func testWaitUntilEndedReturnsAfterTheHandlerIsReleased() {
        final class Captured: Sendable {}
        afe_busy_threads_start(2)
        defer { afe_busy_threads_stop() }
        var stillHeld = 0
        for _ in 0..<200 {
            let pump = EventPump(pollInterval: 0.001)
            var captured: Captured? = Captured()
            weak let watched = captured
            pump.start(name: "EventPumpTests") { [captured] _ in _ = captured; return true }
            captured = nil
            XCTAssertTrue(pump.waitUntilEnded(timeout: 10))
            if watched != nil { stillHeld += 1 }
        }
        XCTAssertEqual(stillHeld, 0, "handlers still held by the pump thread after waitUntilEnded")
    }
}
