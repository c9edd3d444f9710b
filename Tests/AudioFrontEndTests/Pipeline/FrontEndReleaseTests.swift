import AudioFrontEnd
import Foundation
import XCTest

/// A started front end the app lets go of without `finish()` or `cancel()` is freed, its drain thread with it:
/// the thread held it strongly across its waits, so it lived (and its thread ran) until the process ended.
final class FrontEndReleaseTests: XCTestCase {
    func testAStartedFrontEndLetGoWithoutFinishIsFreed() throws {
        weak var released: FrontEnd?
        let collector = FrontEndCollector()
        do {
            let frontEnd = try FrontEnd(configuration: FrontEndConfiguration())
            frontEnd.delegate = collector
            try frontEnd.start()
            let mic = [Int16](repeating: 100, count: 16000)
            for start in stride(from: 0, to: mic.count, by: 160) {
                _ = mic[start..<(start + 160)].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            }
            released = frontEnd
        }
        // The drain may be delivering (it holds the front end for that round): wait for it, generously.
        let deadline = Date().addingTimeInterval(10)
        while released != nil && Date() < deadline { usleep(10_000) }
        XCTAssertNil(released, "the front end outlived its last reference")
        XCTAssertFalse(collector.events.isEmpty, "it delivered events while alive")
    }
}
