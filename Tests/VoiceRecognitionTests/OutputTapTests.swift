import AllocationCounter
import AudioFrontEnd
import Foundation
import Synchronization
import VoiceRecognition
import XCTest

/// A dialog's ``DialogOutputTap`` (the NUI facade's path for EVENT_AEC_DATA, RMS and VAD): the front end's drain
/// thread hands it each chunk of the dialog, clipped and in stream order, without the core's event thread and
/// without an allocation; the dialog's completion comes after its last chunk, and nothing after it.
final class OutputTapTests: XCTestCase {
    /// Counts what it gets; counts allocations and locks on the drain thread between two chunks.
    final class Tap: DialogOutputTap, @unchecked Sendable { // atomics; the rest written by the drain thread only
        let chunks = Atomic<Int>(0)
        let samples = Atomic<Int>(0)
        let levels = Atomic<Int>(0)
        let gaps = Atomic<Int>(0)
        let otherThreads = Atomic<Int>(0)
        let afterCompletion = Atomic<Int>(0)
        let completed = Atomic<Bool>(false)
        let counted = Atomic<Bool>(false)
        private var nextPosition = 0
        nonisolated(unsafe) var drainThread: pthread_t?
        nonisolated(unsafe) var allocations: Int64 = -1
        nonisolated(unsafe) var locks = afe_lock_counts()
        /// The chunks between which the drain thread's allocations and locks are counted.
        let countFrom: Int, countTo: Int

        init(countFrom: Int, countTo: Int) {
            self.countFrom = countFrom
            self.countTo = countTo
        }

        func dialogAudio(_ buffer: UnsafeBufferPointer<Int16>, position: Int) {
            let n = chunks.wrappingAdd(1, ordering: .relaxed).newValue
            if n == countTo {
                locks = afe_lock_counter_stop()
                allocations = afe_allocation_counter_stop()
                counted.store(true, ordering: .releasing)
            }
            if n == 1 {
                drainThread = pthread_self()
            } else if let drainThread, pthread_equal(drainThread, pthread_self()) == 0 {
                otherThreads.add(1, ordering: .relaxed)
            }
            if completed.load(ordering: .acquiring) { afterCompletion.add(1, ordering: .relaxed) }
            if position != nextPosition { gaps.add(1, ordering: .relaxed) }
            nextPosition = position + buffer.count
            samples.add(buffer.count, ordering: .relaxed)
            if n == countFrom {
                afe_allocation_counter_start()
                afe_lock_counter_start()
            }
        }

        func dialogLevel(milliseconds: Int, inputDecibels: Float, outputDecibels: Float) {
            levels.add(1, ordering: .relaxed)
        }

        func dialogSpeech(_ event: RecognitionEvent) {}
    }

    /// Waits (at most 30 s, a safety net) until `condition` holds.
    func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<30_000 where !condition() { usleep(1000) }
        return condition()
    }

    /// The chunks reach the tap while the core's event thread is held inside the handler: that thread is not on
    /// their path. Each comes on the drain thread, in order, without gaps; the summary's output count is what the
    /// tap got; completion comes after the last chunk, nothing after it; after warm-up the drain thread allocates
    /// nothing per chunk (the chunk's [Int16] was one, and the event pump's queue took a lock, before the tap).
    func testTheDrainHandsTheTapEachChunkWithoutTheEventThreadOrAnAllocation() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let server = try ReferenceServer()
        let (mic, reference) = try RecognitionEngineTests.vectors()
        let engine = try RecognitionEngine(configuration: RecognitionConfiguration(service: Wire.dashScope.service(server),
                                                                                  queueFullPolicy: .wait))
        defer { engine.close() }
        let core = try RecognitionCore(engine: engine)
        let tap = Tap(countFrom: 400, countTo: 700)
        core.setOutputTap(tap)
        let log = EventLog()
        let eventThreads = Mutex(Set<UInt>())
        let started = DispatchSemaphore(value: 0), hold = DispatchSemaphore(value: 0)
        log.onEvent = { event in
            _ = eventThreads.withLock { $0.insert(UInt(pthread_self())) }
            switch event {
            case .started:
                started.signal()
                hold.wait() // the event thread stays here while the first 3 s are processed
            case .completed, .error:
                tap.completed.store(true, ordering: .releasing)
            default:
                break
            }
        }
        log.attach(to: core)
        try core.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success, "the task started")
        RecognitionEngineTests.push(engine, mic, reference, seconds: 0..<3)
        let whileHeld = waitUntil { tap.chunks.load(ordering: .relaxed) >= 290 }
        let chunksWhileHeld = tap.chunks.load(ordering: .relaxed)
        hold.signal()
        RecognitionEngineTests.push(engine, mic, reference, seconds: 3..<8)
        try core.finish()
        XCTAssertNotNil(log.waitForEnd())
        let summary = try XCTUnwrap(log.summary, "\(log.events.suffix(2))")
        XCTAssertTrue(waitUntil { tap.counted.load(ordering: .acquiring) }, "the tap got \(tap.countTo) chunks")
        print("tap: \(tap.chunks.load(ordering: .relaxed)) chunks (\(chunksWhileHeld) while the event thread was held), "
              + "\(tap.samples.load(ordering: .relaxed)) samples, \(tap.levels.load(ordering: .relaxed)) levels; drain thread "
              + "over chunks \(tap.countFrom)..<\(tap.countTo): \(tap.allocations) allocations, \(tap.locks.mutex_locks) mutex locks, "
              + "\(tap.locks.mutex_trylocks) trylocks, \(tap.locks.semaphore_waits) semaphore waits (its wake-ups)")

        XCTAssertTrue(whileHeld, "the chunks reach the tap while the event thread is held (\(chunksWhileHeld) of 290)")
        let drain = try XCTUnwrap(tap.drainThread)
        XCTAssertFalse(eventThreads.withLock { $0.contains(UInt(drain)) }, "not on the event thread")
        XCTAssertEqual(pthread_equal(drain, pthread_self()), 0, "not on the pushing thread")
        XCTAssertEqual(tap.otherThreads.load(ordering: .relaxed), 0, "every chunk on one thread, the drain")
        XCTAssertEqual(tap.gaps.load(ordering: .relaxed), 0, "in stream order, from the dialog's sample 0")
        XCTAssertEqual(tap.samples.load(ordering: .relaxed), summary.dialogAudio?.outputSamples, "every chunk of the dialog")
        XCTAssertGreaterThan(tap.levels.load(ordering: .relaxed), 0)
        XCTAssertEqual(tap.afterCompletion.load(ordering: .relaxed), 0, "nothing after the completion")
        XCTAssertFalse(log.events.contains { if case .audio = $0 { true } else if case .level = $0 { true } else { false } },
                       "the handler gets neither the audio nor the levels")
        XCTAssertEqual(tap.allocations, 0, "no allocation on the drain thread per chunk after warm-up")
        // The pthread mutexes there: the event pump's for the telemetry (one frame in 25) and WebRTC's own when the
        // drain processes mic frames a push left behind; none on the chunks' path (the event pump's took one each).
        XCTAssertLessThan(tap.locks.mutex_locks, Int64(tap.countTo - tap.countFrom) / 2, "no pthread mutex per chunk on the drain")
    }
}
