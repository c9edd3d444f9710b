import AudioFrontEnd
import Foundation
@testable import NuiSDK
import XCTest

/// NeoNui's barge-in handler costs the same at every decision: stored as a bare closure in a `Mutex` and read with
/// `withLock { $0 }`, each read wrapped it in one more reabstraction thunk and wrote that back (a heap block more
/// and a deeper stack per decision; the same as the playback's event handler, PlayerEventHandlerTests).
final class BargeInHandlerDepthTests: XCTestCase {
    @inline(never)
    private static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    func testTheHandlerRunsAtTheSameStackDepthAfterThousandsOfDecisions() {
        let nui = NeoNui()
        nonisolated(unsafe) var first: Int?
        nonisolated(unsafe) var deepest = 0
        nonisolated(unsafe) var calls = 0
        nui.setBargeInHandler { _ in
            let address = Self.stackAddress()
            if first == nil { first = address }
            deepest = max(deepest, first! - address)
            calls += 1
        }
        for index in 0..<3000 { // the path an engine's front end takes (its handler, set in engine(for:))
            nui.deliverBargeIn(BargeInDecision(milliseconds: 10 * index, speechStartMilliseconds: 0, sequence: index))
        }
        XCTAssertEqual(calls, 3000)
        XCTAssertLessThan(deepest, 4096, "the handler ran \(deepest) bytes deeper than at the first decision")
        nui.setBargeInHandler(nil)
        XCTAssertNil(nui.bargeInHandler.withLock { $0 })
    }
}
