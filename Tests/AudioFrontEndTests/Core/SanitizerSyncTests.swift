import AudioFrontEnd
import Foundation
import Synchronization
import XCTest

/// `SanitizerSync` tells ThreadSanitizer about a contended `Synchronization.Mutex`, whose slow path (a futex in
/// the uninstrumented Swift runtime) it cannot see. A reader thread polls a value under the mutex while the main
/// thread takes it over and over and then clears the value, the pattern of the drain's per-event `take` against
/// a control thread's `setTap(nil)` (CI's sanitizer step reported that pair as a race on 2026-12-04). Under
/// `--sanitize=thread` (Scripts/test.sh runs this test there; a report stops the process) the same loop without
/// the annotations was reported as a data race in 3 of 3 runs, with them in none. Without the sanitizer it checks
/// only that every reader saw the cleared value.
final class SanitizerSyncTests: XCTestCase {
    final class Shared: @unchecked Sendable { // `value` is guarded by `lock`
        let lock = Mutex<Int>(0)
        var value: AnyObject? = NSObject()
        func withLock<Result>(_ body: () -> Result) -> Result {
            lock.withLock { _ in SanitizerSync.held(by: self, body) }
        }
    }

    func testAContendedMutexHandsItsWritesOverUnderTheSanitizer() {
        var readersDone = 0
        for _ in 0..<200 {
            let shared = Shared()
            let started = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
            let reader = Thread {
                started.signal()
                for _ in 0..<2000 where shared.withLock({ shared.value == nil }) { break }
                done.signal()
            }
            reader.start()
            started.wait()
            for _ in 0..<50 { shared.withLock { for _ in 0..<200 { _ = shared.value } } } // contend
            shared.withLock { shared.value = nil }
            done.wait()
            readersDone += 1
        }
        XCTAssertEqual(readersDone, 200)
    }
}
