import AudioFrontEnd
import AudioPlayback
import Foundation
import XCTest

/// The three sides on three threads at once: an input thread queues utterances (pcm in 640-byte frames) and
/// stops some of them at random moments, a device thread renders 10 ms buffers as fast as it can, the worker
/// decodes. Every utterance must end in exactly one of drained or stopped (one stopped before it began stops at
/// 0), and the reference must be exactly what the device got.
final class PlayerConcurrencyTests: XCTestCase {
    func testUtterancesAndStopsFromAnotherThreadKeepReferenceAndEventsConsistent() throws {
        for seed in [42, 7, 1234] as [UInt64] { try run(seed: seed) }
    }

    private func run(seed initial: UInt64) throws {
        let rate = 16000, frames = 160, utterances = 12
        let reference = RecordingReference(capacity: 1 << 22)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate), reference: reference)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        let rendered = RecordingReference(capacity: 1 << 22) // what the device got
        let done = DispatchSemaphore(value: 0)
        let finished = ManagedAtomicFlag()
        let device = Thread {
            let buffer = UnsafeMutableBufferPointer<Int16>.allocate(capacity: frames)
            while !finished.isSet, rendered.count + frames <= rendered.storage.count {
                player.render(into: buffer)
                _ = rendered.pushReference(samples: UnsafeBufferPointer(buffer))
                usleep(200)
            }
            buffer.deallocate()
            done.signal()
        }
        device.start()
        var seed = initial
        func random(_ n: Int) -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int((seed >> 33) % UInt64(n)) }
        for u in 1...utterances {
            let samples = (0..<(1600 + random(8000))).map { Int16(truncatingIfNeeded: 1 + (($0 * 37 + u * 1000) % 20000)) }
            let bytes = Bytes.littleEndian(samples)
            try player.begin(format: .pcm, sampleRate: rate)
            let stopAt = random(3) == 0 ? random(bytes.count / 640 + 1) : -1
            for (index, start) in stride(from: 0, to: bytes.count, by: 640).enumerated() {
                if index == stopAt { player.stop() }
                bytes.withUnsafeBytes { _ = player.enqueue(UnsafeRawBufferPointer(rebasing: $0[start..<min(start + 640, bytes.count)])) }
                if random(4) == 0 { usleep(UInt32(random(3000))) }
            }
            player.endInput()
            XCTAssertTrue(log.wait { events in
                events.contains { if case .drained(u, _) = $0 { return true }; if case .stopped(u, _) = $0 { return true }; return false }
            }, "seed \(initial): utterance \(u) never ended: \(log.all.suffix(6))")
            if stopAt >= 0 { usleep(20_000) }
        }
        XCTAssertTrue(log.wait { $0.filter(\.isRearmed).count >= 1 })
        finished.set()
        done.wait()
        let endings = log.all.filter { $0.isDrained || $0.isStopped }
        print("endings (seed \(initial)): \(endings.filter(\.isDrained).count) drained, \(endings.filter(\.isStopped).count) stopped")
        XCTAssertGreaterThan(endings.filter(\.isStopped).count, 0, "the seed stops some utterances")
        XCTAssertGreaterThan(endings.filter(\.isDrained).count, 0)
        for u in 1...utterances {
            let count = endings.filter { if case .drained(u, _) = $0 { return true }; if case .stopped(u, _) = $0 { return true }; return false }.count
            XCTAssertEqual(count, 1, "seed \(initial): utterance \(u) must end once, drained or stopped: \(endings)")
        }
        // The reference is every rendered buffer, in order (idle and stopped silence included).
        XCTAssertEqual(reference.samples, rendered.samples, "reference vs rendered")
        XCTAssertEqual(player.counts.refusedInputBytes, 0)
        XCTAssertEqual(player.counts.droppedEvents, 0)
    }
}

/// A flag shared by two threads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
