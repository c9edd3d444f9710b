import AudioPlayback
import Foundation
import XCTest

/// The player's event handler costs the same at every event. Stored as a bare closure in the generic
/// `Locked<(@Sendable (PlaybackEvent) -> Void)?>` and read with `withLock { $0 }`, the optimized build wrapped the
/// stored closure in one more reabstraction thunk at every read and wrote it back: one 40-byte block more per
/// event, never freed while the handler stayed set, and one more frame per event on the worker's stack when the
/// handler ran (the TTS soaks: heap in use +5 blocks per answer; found with Soak/tools/heap_sites.c).
final class PlayerEventHandlerTests: XCTestCase {
    /// The address of a local of this call: lower when the worker's stack under the handler is deeper.
    @inline(never)
    private static func stackAddress() -> Int {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) }
    }

    func testTheHandlerRunsAtTheSameStackDepthAfterThousandsOfEvents() throws {
        let rate = 16000
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate))
        defer { player.close() }
        let lock = NSLock()
        nonisolated(unsafe) var first: Int?
        nonisolated(unsafe) var deepest = 0
        nonisolated(unsafe) var events = 0, drained = 0
        player.setEventHandler { event in
            let address = Self.stackAddress()
            lock.lock()
            if first == nil { first = address }
            deepest = max(deepest, first! - address)
            events += 1
            if case .drained = event { drained += 1 }
            lock.unlock()
        }
        // Utterances of 10 ms played one after another (this thread is the device): inputEnded, started and
        // drained each, and the mic re-armed after some.
        let utterances = 1000
        let piece = [UInt8](repeating: 1, count: 320)
        var buffer = [Int16](repeating: 0, count: 160)
        let deadline = Date().addingTimeInterval(120)
        for index in 0..<utterances {
            _ = try player.begin(format: .pcm, sampleRate: rate)
            piece.withUnsafeBytes { _ = player.enqueue($0) }
            player.endInput()
            while lock.withLock({ drained }) <= index && Date() < deadline {
                buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
                usleep(200)
            }
        }
        let (count, done, growth) = lock.withLock { (events, drained, deepest) }
        XCTAssertEqual(done, utterances, "every utterance drained")
        XCTAssertGreaterThanOrEqual(count, 3 * utterances)
        // A thunk a read is at least 16 bytes of stack per event: 3,000 events would be 48 KB and more.
        XCTAssertLessThan(growth, 4096, "the handler ran \(growth) bytes deeper than at the first event")
    }
}
