import Foundation
import XCTest
@testable import AudioFrontEnd

/// Frames a push leaves in the mic ring when the event rings are full (issue 13: a front end that outlives
/// dialogs): the drain thread processes them once it has made room, with no further push, and a push that
/// comes while the drain processes is neither refused nor reordered.
final class FrontEndLeftBehindTests: XCTestCase {
    /// Holds the drain thread in its first callback until released; counts the audio and waits for a count.
    final class Holder: FrontEndDelegate, @unchecked Sendable {
        let condition = NSCondition()
        var open = false
        var audio: [Int16] = []
        func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
            condition.lock()
            while !open { condition.wait() }
            if case .audio(let chunk) = event { audio += chunk.samples }
            condition.broadcast()
            condition.unlock()
        }
        func release() { condition.withLock { open = true; condition.broadcast() } }
        /// Waits until `count` samples came (false after `timeout` s: a safety net, not a timing).
        func wait(forSamples count: Int, timeout: TimeInterval = 60) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            return condition.withLock {
                while audio.count < count { if !condition.wait(until: deadline) { return false } }
                return true
            }
        }
        var samples: [Int16] { condition.withLock { audio } }
    }

    static func ramp(_ count: Int) -> [Int16] { (0..<count).map { Int16(truncatingIfNeeded: $0 &* 7919 % 65536 - 32768) } }

    /// 10 ms pushes while the drain is held, until the event rings (about 400 frames here) are full and 50
    /// frames more wait in the mic ring. Released, the drain delivers every accepted sample with no other push
    /// (before the fix the frames left behind waited for the next push: a dialog that ended meanwhile lost them).
    func testFramesLeftInTheMicRingAreDeliveredWithoutAnotherPush() throws {
        let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain())
        let holder = Holder()
        frontEnd.delegate = holder
        try frontEnd.start()
        let ramp = Self.ramp(16000 * 15)
        var pushed = 0, extra = 0
        while extra < 50 && pushed + 160 <= ramp.count {
            let result = ramp[pushed..<(pushed + 160)].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            XCTAssertEqual(result, PushResult(status: .ok, accepted: 160))
            pushed += result.accepted
            if frontEnd.micRing.count > 0 { extra += 1 }
        }
        let input = Array(ramp[..<pushed])
        XCTAssertGreaterThanOrEqual(frontEnd.micRing.count, 160 * 50, "frames were left in the mic ring (the event rings were full)")
        holder.release()
        XCTAssertTrue(holder.wait(forSamples: input.count), "every accepted sample is delivered: \(holder.samples.count) of \(input.count)")
        XCTAssertTrue(holder.samples == input, "in order, sample for sample")
        XCTAssertGreaterThan(frontEnd.framesProcessedByDrain.load(ordering: .relaxed), 0)
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.outputSamples, input.count)
        XCTAssertEqual(holder.samples.count, input.count, "nothing more came with the finish")
    }

    /// A slow consumer and pushes in bursts (5 s of audio as fast as possible, then a pause): each burst fills
    /// the event rings and leaves frames behind, the drain processes them in the pause, and the next burst may
    /// come while it does. No push is refused as concurrent, nothing is lost or reordered: asserted for whatever
    /// interleaving the run had (its counts are printed).
    func testPushesWhileTheDrainProcessesAreTakenInOrder() throws {
        final class Slow: FrontEndDelegate, @unchecked Sendable {
            let collector = FrontEndCollector()
            func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
                if case .audio = event { usleep(200) }
                collector.frontEnd(frontEnd, didProduce: event)
            }
        }
        let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain())
        let slow = Slow()
        frontEnd.delegate = slow
        try frontEnd.start()
        let input = Self.ramp(16000 * 20 + 80)
        var offset = 0, full = 0, pauses = 0
        while offset < input.count {
            let end = min(input.count, offset + 160)
            let result = input[offset..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            XCTAssertTrue([.ok, .bufferFull].contains(result.status), "\(result)")
            if offset / 80_000 != (offset + result.accepted) / 80_000 {
                pauses += 1
                usleep(UInt32(40_000 * (1 + pauses % 4)))
            }
            offset += result.accepted
            if result.status == .bufferFull { full += 1; usleep(1000) }
        }
        let summary = try frontEnd.finish()
        print("MEASURED left-behind frames processed by the drain: \(frontEnd.framesProcessedByDrain.load(ordering: .relaxed)) of \(summary.framesProcessed); \(full) bufferFull pushes")
        XCTAssertEqual(summary.micSamplesPushed, input.count)
        XCTAssertTrue(slow.collector.audio == input, "the output is the input, sample for sample")
    }

    /// The gate's states: a push that finds the drain processing hands off instead of failing, takes the
    /// processing over once the drain lets it go, and the drain takes only flagged work with no push inside.
    func testTheMicGateHandsTheProcessingOver() {
        let gate = MicGate()
        XCTAssertFalse(gate.takeLeftBehind(), "no work flagged")
        XCTAssertEqual(gate.enter(), .processing)
        XCTAssertEqual(gate.enter(), .refused(.concurrentPush), "one app push at a time")
        XCTAssertFalse(gate.takeLeftBehind(), "not while a push is inside")
        XCTAssertTrue(gate.leave(processed: true, workLeft: true), "work left behind is flagged")
        XCTAssertTrue(gate.takeLeftBehind(), "the drain takes flagged work")
        XCTAssertEqual(gate.enter(), .handingOff, "a push while the drain processes is not refused")
        XCTAssertTrue(gate.hasPushInside)
        XCTAssertFalse(gate.takeProcessing(), "the drain still processes")
        XCTAssertEqual(gate.enter(), .refused(.concurrentPush))
        gate.releaseProcessing(workLeft: true)
        XCTAssertFalse(gate.takeLeftBehind(), "the push is inside: it takes the work")
        XCTAssertTrue(gate.takeProcessing())
        XCTAssertFalse(gate.leave(processed: true, workLeft: false), "all processed: nothing flagged")
        XCTAssertFalse(gate.takeLeftBehind())
        XCTAssertEqual(gate.enter(), .processing)
        XCTAssertTrue(gate.leave(processed: true, workLeft: true))
        XCTAssertTrue(gate.takeLeftBehind())
        XCTAssertEqual(gate.enter(), .handingOff)
        XCTAssertTrue(gate.leave(processed: false, workLeft: false), "a push that handed off flags its samples")
        gate.releaseProcessing(workLeft: false)
        XCTAssertTrue(gate.takeLeftBehind(), "the flag of the push that handed off stays")
        gate.releaseProcessing(workLeft: false)
        gate.close()
        XCTAssertEqual(gate.enter(), .refused(.notRunning))
        XCTAssertFalse(gate.takeLeftBehind(), "closed: the rest is finish()'s")
    }
}
