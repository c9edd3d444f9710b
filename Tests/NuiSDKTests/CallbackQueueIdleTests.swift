import Foundation
@testable import NuiSDK
import XCTest

/// An idle callback thread sleeps: with no front end attached to its drain host (a `NeoNuiStreamInputTts`
/// instance's queue, or a `NeoNui` between engines) it waits for the next post without a timeout, and a post
/// after seconds of sleep still runs at once.
final class CallbackQueueIdleTests: XCTestCase {
    func testAnIdleQueueDoesNotWakeOnItsOwnAndAPostStillWakesIt() {
        let queue = CallbackQueue()
        let ran = expectation(description: "first callback")
        XCTAssertTrue(queue.post { ran.fulfill() })
        wait(for: [ran], timeout: 5)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(queue.drainHost.timedOutWaitCount, 0, "the idle thread woke on its own (a timed wait)")
        let again = expectation(description: "a post after the sleep")
        XCTAssertTrue(queue.post { again.fulfill() })
        wait(for: [again], timeout: 5)
    }
}
