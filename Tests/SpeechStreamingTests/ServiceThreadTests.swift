import AllocationCounter
import Foundation
@testable import SpeechStreaming
import XCTest

/// The network thread ends inside `shutdown()`: nothing it held outlives the call. A detached service thread once
/// still held its transport after `shutdown()` returned; the transport's deinit then ran on that thread while a C
/// program exited after `nui_release`, and LeakSanitizer reported the weak reference's side table (CI, 2026-12-05).
final class ServiceThreadTests: XCTestCase {
    func testShutdownLeavesTheTransportToTheCaller() throws {
        // Both cores busy: a service thread still finishing after shutdown() would often be preempted there.
        afe_busy_threads_start(2)
        defer { afe_busy_threads_stop() }
        var stillHeld = 0
        for _ in 0..<200 {
            var transport: WebSocketTransport? = try WebSocketTransport(usesTLS: false, caFilePath: nil,
                                                                        connectTimeout: .seconds(1),
                                                                        maxMessageBytes: 1 << 16)
            try transport!.startServiceThread()
            transport!.shutdown()
            weak let watched = transport
            transport = nil
            if watched != nil { stillHeld += 1 }
        }
        XCTAssertEqual(stillHeld, 0, "transports still held by their service thread after shutdown()")
    }

    func testShutdownIsIdempotentAndAStoppedTransportEnds() throws {
        weak var watched: WebSocketTransport?
        do {
            let transport = try WebSocketTransport(usesTLS: false, caFilePath: nil, connectTimeout: .seconds(1),
                                                   maxMessageBytes: 1 << 16)
            watched = transport
            try transport.startServiceThread()
            transport.shutdown()
            transport.shutdown()
        }
        XCTAssertNil(watched)
    }
}
