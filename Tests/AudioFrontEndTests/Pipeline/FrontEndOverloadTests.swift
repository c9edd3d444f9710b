import Foundation
import XCTest
@testable import AudioFrontEnd

/// Overload and wrong calls (point 5 of the pipeline issue): a full mic ring takes what fits and says so, never
/// overwriting; reference overflow drops the oldest and counts it; calls in the wrong state get a clear status.
final class FrontEndOverloadTests: XCTestCase {
    /// Blocks the drain thread until opened, so the event rings and then the mic ring fill.
    final class Staller: FrontEndDelegate, @unchecked Sendable {
        let gate = NSCondition()
        var open = false
        let collector = FrontEndCollector()
        func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
            gate.lock(); while !open { gate.wait() }; gate.unlock()
            collector.frontEnd(frontEnd, didProduce: event)
        }
        func release() { gate.lock(); open = true; gate.broadcast(); gate.unlock() }
    }

    /// Odd byte pushes into a stalled front end: each push reports `bufferFull` with the bytes it took once the
    /// ring is full; the app pushes the rest again later. Nothing was overwritten or lost: the output is the
    /// input, sample for sample, and the refused bytes are counted.
    func testFullMicRingTakesWhatFitsFromBytePushesAndLosesNothing() throws {
        var configuration = FrontEndHarness.plain()
        configuration.micBufferMilliseconds = 100
        let frontEnd = try FrontEnd(configuration: configuration)
        let staller = Staller()
        frontEnd.delegate = staller
        try frontEnd.start()
        let count = 16000 * 6 + 3
        let input = (0..<count).map { Int16(truncatingIfNeeded: $0 &* 7919 % 65536 - 32768) }
        let bytes = FrontEndChannelTests.bytes(input)
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SeededRandom(seed: seed)
        var offset = 0, refused = 0, fullPushes = 0
        while offset < bytes.count {
            let n = min(bytes.count - offset, 1 + Int(random.next() % 999))
            let result = bytes[offset..<(offset + n)].withUnsafeBytes { frontEnd.pushMic(bytes: $0) }
            XCTAssertLessThanOrEqual(result.accepted, n)
            if result.status == .bufferFull {
                XCTAssertLessThan(result.accepted, n, "bufferFull takes less than pushed, seed \(seed)")
                refused += n - result.accepted
                fullPushes += 1
                if fullPushes == 20 { staller.release() } // the consumer catches up after 20 refusals
                else if fullPushes > 20 { usleep(500) }
            } else {
                XCTAssertEqual(result, PushResult(status: .ok, accepted: n), "seed \(seed)")
            }
            offset += result.accepted
        }
        staller.release()
        let summary = try frontEnd.finish()
        XCTAssertGreaterThanOrEqual(fullPushes, 20, "the stalled consumer made pushes report bufferFull")
        XCTAssertEqual(summary.micSamplesPushed, count, "seed \(seed)")
        XCTAssertEqual(summary.drops.micRefusedBytes, refused, "refused bytes counted, seed \(seed)")
        XCTAssertTrue(staller.collector.audio == input, "the output is the input sample for sample (seed \(seed))")
        let reported = staller.collector.events.compactMap { if case .drops(let d) = $0 { d.micRefusedBytes } else { nil } }
        XCTAssertEqual(reported.last, refused, "the drops event reports the refused bytes")
    }

    /// The reference window keeps the newest samples: pushing 5 s of reference before any mic overwrites the
    /// oldest, and what was overwritten unused is counted once, when the mic reaches it.
    func testReferenceOverflowDropsTheOldestAndCountsIt() throws {
        let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain())
        let collector = FrontEndCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        let capacity = frontEnd.references.capacity
        XCTAssertGreaterThanOrEqual(capacity, 56000, "at least the default 3.5 s window")
        XCTAssertLessThan(capacity, 80000, "the test pushes more than the window")
        let reference = (0..<(16000 * 5)).map { Int16(truncatingIfNeeded: $0) }
        for start in stride(from: 0, to: reference.count, by: 1000) {
            XCTAssertEqual(reference[start..<(start + 1000)].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) },
                           PushResult(status: .ok, accepted: 1000), "reference pushes are never refused")
        }
        let mic = [Int16](repeating: 0, count: 16000 * 5)
        for start in stride(from: 0, to: mic.count, by: frontEnd.maximumMicPushSamples) { // one push takes at most 1 s
            let slice = mic[start..<min(mic.count, start + frontEnd.maximumMicPushSamples)]
            XCTAssertEqual(slice.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .ok)
        }
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.drops.referenceDroppedSamples, reference.count - capacity, "the oldest reference dropped")
        XCTAssertEqual(summary.drops.referenceMissingSamples, 0)
        let reported = collector.events.compactMap { if case .drops(let d) = $0 { d.referenceDroppedSamples } else { nil } }
        XCTAssertEqual(reported.last, reference.count - capacity, "a drops event reports it")
    }

    /// The history itself: after overflow the newest `capacity` samples read back exactly, older positions read
    /// as silence, and reading them counts them dropped once.
    func testReferenceHistoryKeepsTheNewestWindow() {
        let history = ReferenceHistory(minimumCapacity: 1000)
        let capacity = history.capacity
        let values = (0..<(capacity * 3 + 17)).map { Int16(truncatingIfNeeded: $0 * 3) }
        for start in stride(from: 0, to: values.count, by: 333) {
            values[start..<min(values.count, start + 333)].withUnsafeBufferPointer { history.append($0) }
        }
        var window = [Int16](repeating: 1, count: values.count)
        window.withUnsafeMutableBufferPointer { history.read(from: 0, into: $0) }
        let kept = values.count - capacity
        XCTAssertTrue(window[kept...].elementsEqual(values[kept...]), "the newest window reads back exactly")
        XCTAssertTrue(window[..<kept].allSatisfy { $0 == 0 }, "overwritten positions read as silence")
        XCTAssertEqual(history.droppedCount, kept)
        XCTAssertEqual(history.missingCount, 0)
        // Past the end: missing, counted once; skipping ahead (play_start resync) reads silence, not drops.
        var after = [Int16](repeating: 1, count: 100)
        after.withUnsafeMutableBufferPointer { history.read(from: values.count, into: $0) }
        XCTAssertEqual(history.missingCount, 100)
        history.advance(to: values.count + 500)
        after.withUnsafeMutableBufferPointer { history.read(from: values.count + 100, into: $0) }
        XCTAssertTrue(after.allSatisfy { $0 == 0 })
        XCTAssertEqual(history.droppedCount, kept)
        XCTAssertEqual(history.writePosition, values.count + 500)
    }

    func testCallsInTheWrongStateGetAClearStatus() throws {
        let samples: [Int16] = [1, 2, 3]
        let bytes: [UInt8] = [1, 2, 3]
        func pushes(_ frontEnd: FrontEnd) -> [PushStatus] {
            [samples.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) },
             samples.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) },
             bytes.withUnsafeBytes { frontEnd.pushMic(bytes: $0) },
             bytes.withUnsafeBytes { frontEnd.pushReference(bytes: $0) }].map {
                XCTAssertEqual($0.accepted, 0, "nothing taken when refused")
                return $0.status
            }
        }
        func assertInvalidState(_ call: () throws -> Void, _ label: String) {
            XCTAssertThrowsError(try call(), label) { error in
                let error = error as? AudioFrontEndError
                XCTAssertEqual(error?.code, .invalidState, label)
                XCTAssertFalse(error?.message.isEmpty ?? true, label)
            }
        }
        // Created, not started.
        let created = try FrontEnd()
        XCTAssertEqual(pushes(created), [.notRunning, .notRunning, .notRunning, .notRunning], "before start")
        assertInvalidState({ try created.finish() }, "finish before start")
        created.setPlaying(false) // a hint is fine in any state
        // Cancelled.
        let cancelled = try FrontEnd()
        try cancelled.start()
        cancelled.cancel()
        cancelled.cancel() // twice is fine
        XCTAssertEqual(pushes(cancelled), [.notRunning, .notRunning, .notRunning, .notRunning], "after cancel")
        assertInvalidState({ try cancelled.finish() }, "finish after cancel")
        assertInvalidState({ try cancelled.start() }, "start after cancel")
        // Finished.
        let finished = try FrontEnd()
        try finished.start()
        assertInvalidState({ try finished.start() }, "start twice")
        try finished.finish()
        XCTAssertEqual(pushes(finished), [.notRunning, .notRunning, .notRunning, .notRunning], "after finish")
        assertInvalidState({ try finished.finish() }, "finish twice")
        assertInvalidState({ try finished.start() }, "start after finish")
        finished.cancel() // harmless after finish
    }
}
