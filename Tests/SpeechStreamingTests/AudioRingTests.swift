import Foundation
@testable import SpeechStreaming
import XCTest

/// The SPSC record ring over every (capacity, offset, fill) layout, its overrun policy, epochs, and a
/// two-thread stress with exact accounting.
final class AudioRingTests: XCTestCase {
    /// Writes and reads records of every length at every starting offset, so every wrap position is hit.
    func testEveryLayoutRoundTrips() {
        for capacity in [64, 128, 256] {
            for offset in 0..<capacity {
                for length in [0, 1, 7, 8, 9, capacity / 2 - AudioRing.headerBytes, capacity - AudioRing.headerBytes] {
                    let ring = AudioRing(minimumCapacity: capacity)
                    XCTAssertEqual(ring.capacity, capacity)
                    advance(ring, to: offset)
                    let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ offset) }
                    XCTAssertTrue(payload.withUnsafeBytes { ring.write($0, epoch: 5) },
                                  "capacity \(capacity) offset \(offset) length \(length)")
                    let record = ring.peek()
                    XCTAssertEqual(record?.length, length, "capacity \(capacity) offset \(offset)")
                    XCTAssertEqual(record?.epoch, 5)
                    var out = [UInt8](repeating: 0, count: max(length, 1))
                    out.withUnsafeMutableBytes { ring.read(length: length, into: $0.baseAddress!) }
                    XCTAssertEqual(Array(out.prefix(length)), payload, "capacity \(capacity) offset \(offset) length \(length)")
                    XCTAssertNil(ring.peek())
                    XCTAssertEqual(ring.queuedBytes, 0)
                }
            }
        }
    }

    /// Moves both indices to `offset` (mod capacity) with filler records of at least a header each.
    func advance(_ ring: AudioRing, to offset: Int) {
        let half = ring.capacity / 2
        var remaining = offset == 0 ? 0 : (offset < AudioRing.headerBytes ? offset + ring.capacity : offset)
        while remaining > 0 {
            let step = remaining >= AudioRing.headerBytes + half ? half : remaining
            let filler = [UInt8](repeating: 0xEE, count: step - AudioRing.headerBytes)
            XCTAssertTrue(filler.withUnsafeBytes { ring.write($0, epoch: 9) })
            ring.skip(length: ring.peek()!.length)
            remaining -= step
        }
        XCTAssertEqual(ring.queuedBytes, 0)
    }

    func testOverrunRefusesWholeRecordsAndCounts() {
        let ring = AudioRing(minimumCapacity: 100)
        XCTAssertEqual(ring.capacity, 128)
        let record = [UInt8](repeating: 1, count: 48) // 64 bytes with the header
        XCTAssertTrue(record.withUnsafeBytes { ring.write($0, epoch: 1) })
        XCTAssertTrue(record.withUnsafeBytes { ring.write($0, epoch: 1) })
        XCTAssertFalse([UInt8](repeating: 2, count: 1).withUnsafeBytes { ring.write($0, epoch: 1) }, "full")
        XCTAssertEqual(ring.overruns.load(ordering: .relaxed), 1)
        XCTAssertEqual(ring.queuedBytes, 128, "nothing queued was overwritten")
        ring.discardAll()
        XCTAssertNil(ring.peek())
        XCTAssertTrue(record.withUnsafeBytes { ring.write($0, epoch: 3) })
        XCTAssertEqual(ring.peek()?.epoch, 3)
    }

    /// A producer and a consumer thread move 1 MB through a 4 KiB ring in random-length records; every byte
    /// arrives in order, refused records are retried, and the counts add up.
    func testTwoThreadStress() {
        let ring = AudioRing(minimumCapacity: 4096)
        let total = 1_000_000
        let seed: UInt64 = 0x5EED
        let producerDone = LockedValue(false)
        let producer = Thread {
            var generator = SeededRandom(seed: seed)
            var sent = 0
            var buffer = [UInt8](repeating: 0, count: 600)
            while sent < total {
                let length = min(Int(generator.next() % 600) + 1, total - sent)
                for i in 0..<length { buffer[i] = UInt8(truncatingIfNeeded: sent + i) }
                while !buffer.withUnsafeBytes({ ring.write(UnsafeRawBufferPointer(rebasing: $0[0..<length]), epoch: 1) }) { sched_yield() }
                sent += length
            }
            producerDone.set(true)
        }
        producer.start()
        var received = 0
        var mismatches = 0
        var records = 0
        var scratch = [UInt8](repeating: 0, count: 600)
        let deadline = Date().addingTimeInterval(60)
        while received < total && Date() < deadline {
            guard let record = ring.peek() else { sched_yield(); continue }
            scratch.withUnsafeMutableBytes { ring.read(length: record.length, into: $0.baseAddress!) }
            records += 1
            if records % 200 == 0 { usleep(1000) } // let the producer fill the ring now and then
            for i in 0..<record.length where scratch[i] != UInt8(truncatingIfNeeded: received + i) { mismatches += 1 }
            received += record.length
        }
        while !producerDone.get() && Date() < deadline { usleep(1000) }
        XCTAssertEqual(received, total, "seed \(seed)")
        XCTAssertEqual(mismatches, 0, "seed \(seed)")
        XCTAssertGreaterThan(ring.overruns.load(ordering: .relaxed), 0, "the producer outran the consumer at times")
    }
}
