import AllocationCounter
import AudioFrontEnd
import Foundation
import Synchronization
@testable import VoiceRecognition
import XCTest

/// Where a standalone ``RecognitionSession``'s elements come from (issue 13 part 3): the processed audio, levels
/// and VAD go into the sequences on the front end's drain thread (the session's ``SessionTap``), not through the
/// core's event thread; the service's results come from the event thread; the completion is last and nothing
/// follows it. The drain thread's allocations and pthread mutex locks per 10 ms frame are counted after warm-up;
/// so are the event thread's on the callback core's path (``RecognitionCore/eventHandler``), which still carries
/// every event.
final class RecognitionSessionDeliveryTests: XCTestCase {
    /// Wraps a tap; notes the thread of every call, and counts the calling thread's allocations and locks between
    /// the levels (one per frame) `countFrom` and `countTo`.
    final class CountingTap: DialogOutputTap, @unchecked Sendable { // atomics; the rest on the drain thread only
        let inner: any DialogOutputTap
        let countFrom: Int, countTo: Int
        let frames = Atomic<Int>(0)
        let chunks = Atomic<Int>(0)
        let otherThreads = Atomic<Int>(0)
        let counted = Atomic<Bool>(false)
        nonisolated(unsafe) var thread: pthread_t?
        nonisolated(unsafe) var allocations: Int64 = -1
        nonisolated(unsafe) var locks = afe_lock_counts()

        init(_ inner: any DialogOutputTap, countFrom: Int, countTo: Int) {
            self.inner = inner
            self.countFrom = countFrom
            self.countTo = countTo
        }

        private func note() {
            if thread == nil { thread = pthread_self() } else if pthread_equal(thread!, pthread_self()) == 0 {
                otherThreads.add(1, ordering: .relaxed)
            }
        }

        func dialogAudio(_ samples: UnsafeBufferPointer<Int16>, position: Int) {
            note()
            chunks.add(1, ordering: .relaxed)
            inner.dialogAudio(samples, position: position)
        }

        func dialogLevel(milliseconds: Int, inputDecibels: Float, outputDecibels: Float) {
            note()
            let n = frames.wrappingAdd(1, ordering: .relaxed).newValue
            if n == countTo {
                locks = afe_lock_counter_stop()
                allocations = afe_allocation_counter_stop()
                counted.store(true, ordering: .releasing)
            }
            inner.dialogLevel(milliseconds: milliseconds, inputDecibels: inputDecibels, outputDecibels: outputDecibels)
            if n == countFrom {
                afe_allocation_counter_start()
                afe_lock_counter_start()
            }
        }

        func dialogSpeech(_ event: RecognitionEvent) {
            note()
            inner.dialogSpeech(event)
        }
    }

    /// A compact record of the `events` sequence.
    enum Seen: Equatable {
        case audio(position: Int, count: Int)
        case speech(milliseconds: Int)
        case level, result, other
        case completed
    }

    static func read(_ session: RecognitionSession) -> Task<[Seen], Never> {
        let events = session.events
        return Task {
            var seen: [Seen] = []
            for await event in events {
                switch event {
                case .audio(let chunk): seen.append(.audio(position: chunk.position, count: chunk.samples.count))
                case .level: seen.append(.level)
                case .speechStarted(let ms), .speechEnded(let ms): seen.append(.speech(milliseconds: ms))
                case .sentenceStart, .partialResult, .finalResult, .translation: seen.append(.result)
                case .completed: seen.append(.completed)
                default: seen.append(.other)
                }
            }
            return seen
        }
    }

    /// Pushes `seconds` of the echo vector (or, with `speech`, the double-talk one: the user over the far end) and
    /// the far end as the reference, in 10 ms pieces at about 4x real time.
    static func push(_ session: RecognitionSession, seconds: Int, speech: Bool = false) throws {
        var (mic, reference) = try RecognitionEngineTests.vectors()
        if speech { mic = try TestVectors.int16("doubletalk_ser0db_16k.wav").samples }
        RecognitionEngineTests.push(mic, reference, seconds: 0..<Double(seconds), pause: 2500,
                                    mic: { session.pushMic(samples: $0) }, reference: { session.pushReference(samples: $0) })
    }

    func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<30_000 where !condition() { usleep(1000) }
        return condition()
    }

    func testTheDrainFillsTheSequencesInStreamOrderAndTheCompletionIsLast() async throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(
            service: Wire.dashScope.service(server), queueFullPolicy: .wait))
        // The session's own tap, counted: the same type and settings RecognitionSession installs.
        let tap = CountingTap(SessionTap(outputs: session.outputs, sampleRate: session.core.outputRate, reportsAudio: true),
                              countFrom: 300, countTo: 600)
        session.core.setOutputTap(tap)
        let reader = Self.read(session)
        let audio = Task { await session.processedAudio.reduce(0) { $0 + $1.samples.count } }
        try await session.start()
        try Self.push(session, seconds: 8, speech: true)
        let summary = try await session.finish()
        let seen = await reader.value
        let audioSamples = await audio.value
        XCTAssertTrue(waitUntil { tap.counted.load(ordering: .acquiring) })
        let frames = tap.countTo - tap.countFrom
        print("standalone session, events and processedAudio read: \(seen.count) events "
              + "(\(seen.filter { if case .audio = $0 { true } else { false } }.count) chunks, "
              + "\(seen.filter { $0 == .result }.count) results, \(seen.filter { if case .speech = $0 { true } else { false } }.count) VAD); drain thread over "
              + "frames \(tap.countFrom)..<\(tap.countTo): \(tap.allocations) allocations (\(Self.per(tap.allocations, frames)) per frame), "
              + "\(tap.locks.mutex_locks) pthread mutex locks (\(Self.per(tap.locks.mutex_locks, frames)) per frame), "
              + "\(tap.locks.semaphore_waits) semaphore waits")

        XCTAssertEqual(summary.ending, .finished)
        XCTAssertEqual(tap.otherThreads.load(ordering: .relaxed), 0, "audio, levels and VAD all from one thread")
        XCTAssertEqual(pthread_equal(try XCTUnwrap(tap.thread), pthread_self()), 0, "not on the pushing thread")
        XCTAssertEqual(seen.last, .completed, "the completion is the last element")
        XCTAssertEqual(seen.filter { $0 == .completed }.count, 1)
        var next = 0, speech = 0
        for element in seen {
            switch element {
            case .audio(let position, let count):
                XCTAssertEqual(position, next, "the chunks in stream order, without a gap")
                next = position + count
            case .speech(let milliseconds): // at its place in the audio: never ahead of it (by more than the stages' delay)
                speech += 1
                XCTAssertGreaterThanOrEqual(next, milliseconds * 16 - 800, "VAD at \(milliseconds) ms after \(next) samples")
            default:
                break
            }
        }
        XCTAssertEqual(next, audioSamples, "events and processedAudio carry the same audio")
        XCTAssertEqual(next, summary.frontEnd?.outputSamples, "every processed sample, before the completion")
        XCTAssertEqual(seen.filter { $0 == .level }.count, summary.frontEnd?.framesProcessed, "one level per frame")
        XCTAssertGreaterThan(speech, 0, "the user's speech was found")
        XCTAssertLessThanOrEqual(abs(speech - 2 * summary.speechSegments.count), 1,
                                 "each segment's start and end (the last may stay open)")
        XCTAssertEqual(summary.drops.eventsDropped, 0)
        XCTAssertGreaterThanOrEqual(tap.allocations, Int64(frames), "counted: at least the chunk's [Int16] per frame")
    }

    static func per(_ value: Int64, _ frames: Int) -> String { String(format: "%.2f", Double(value) / Double(frames)) }

    /// With nobody waiting on a sequence (none read during the count; the telemetry buffered in its bounded
    /// pending array, warm after ~1,000 elements) the drain's whole path per frame (the ring, the forwarder, the
    /// tap, the bounded sequences) allocates nothing: what a reader costs is AsyncStream's wake-up of its task.
    func testWithNobodyWaitingTheDrainAllocatesNothingPerFrame() async throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(
            service: Wire.dashScope.service(server), queueFullPolicy: .wait, reportsAudio: false))
        let tap = CountingTap(SessionTap(outputs: session.outputs, sampleRate: session.core.outputRate, reportsAudio: false),
                              countFrom: 1200, countTo: 1700)
        session.core.setOutputTap(tap)
        try await session.start()
        try Self.push(session, seconds: 18)
        let summary = try await session.finish()
        let levels = await session.telemetry.reduce(0) { if case .level = $1 { $0 + 1 } else { $0 } }
        XCTAssertTrue(waitUntil { tap.counted.load(ordering: .acquiring) })
        let frames = tap.countTo - tap.countFrom
        print("standalone session, reportsAudio false, nobody waiting: drain thread over frames \(tap.countFrom)..<\(tap.countTo): "
              + "\(tap.allocations) allocations, \(tap.locks.mutex_locks) pthread mutex locks "
              + "(\(Self.per(tap.locks.mutex_locks, frames)) per frame); \(levels) levels kept of \(summary.frontEnd?.framesProcessed ?? 0)")
        XCTAssertEqual(summary.ending, .finished)
        XCTAssertEqual(tap.chunks.load(ordering: .relaxed), 0, "no processed audio")
        XCTAssertLessThanOrEqual(levels, RecognitionOutputs.Limits().telemetry, "the newest levels, bounded")
        XCTAssertGreaterThan(levels, RecognitionOutputs.Limits().telemetry * 9 / 10, "mostly levels (some echo telemetry)")
        XCTAssertEqual(tap.allocations, 0, "no allocation on the drain per frame after warm-up")
        XCTAssertLessThanOrEqual(tap.locks.mutex_locks, Int64(3 * frames), "the two sequences' locks per level, a few more")
    }

    /// Before this change (and still the callback core's path, ``RecognitionCore/eventHandler``): every event
    /// crosses to the event thread, which fed the sequences. Its cost per frame there, for the record, in the two
    /// settings above (printed; what the drain did then besides is not counted here: the chunk's [Int16] and the
    /// event pump's lock per event).
    func testTheEventThreadsCostPerFrameWithoutTheTap() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1 && afe_lock_counter_available() == 1,
                          "allocation and lock counting are off under sanitizers")
        for readers in [true, false] {
            let server = try ReferenceServer()
            let session = try RecognitionSession(configuration: RecognitionConfiguration(
                service: Wire.dashScope.service(server), queueFullPolicy: .wait, reportsAudio: readers))
            session.core.setOutputTap(nil) // the session's sequences fed by the event thread, as before this change
            let original = try XCTUnwrap(session.core.eventHandler)
            final class Count: @unchecked Sendable { // the event thread only; read after the end
                var frames = 0
                var allocations: Int64 = -1
                var locks = afe_lock_counts()
            }
            let count = Count()
            let (from, to) = readers ? (300, 600) : (1200, 1700)
            session.core.eventHandler = { event in
                guard case .level = event else { return original(event) }
                count.frames += 1
                if count.frames == to {
                    count.locks = afe_lock_counter_stop()
                    count.allocations = afe_allocation_counter_stop()
                }
                original(event)
                if count.frames == from {
                    afe_allocation_counter_start()
                    afe_lock_counter_start()
                }
            }
            let done = DispatchSemaphore(value: 0)
            if readers {
                let events = session.events, audio = session.processedAudio
                Task {
                    async let a: Int = events.reduce(0) { n, _ in n + 1 }
                    async let b: Int = audio.reduce(0) { n, _ in n + 1 }
                    _ = await (a, b)
                    done.signal()
                }
            }
            try session.core.start()
            try Self.push(session, seconds: readers ? 8 : 18)
            try session.core.finish()
            XCTAssertTrue(session.core.waitUntilEventThreadEnded(timeout: 30))
            if readers { XCTAssertEqual(done.wait(timeout: .now() + 30), .success) }
            print("event thread without the tap, \(readers ? "events and processedAudio read" : "reportsAudio false, nobody waiting"), "
                  + "frames \(from)..<\(to): \(count.allocations) allocations (\(Self.per(count.allocations, to - from)) per frame), "
                  + "\(count.locks.mutex_locks) pthread mutex locks (\(Self.per(count.locks.mutex_locks, to - from)) per frame)")
            XCTAssertGreaterThanOrEqual(count.allocations, 0, "counted")
        }
    }

    /// The callback core's event thread is not a tap: a handler slower than the audio. Its queue keeps at most
    /// ``AudioForwarder/frontEndBacklogLimit`` front-end messages waiting; beyond that the audio, levels and echo
    /// telemetry are dropped and counted (the summary's ``RecognitionDrops/eventsDropped``), never the VAD, the
    /// drops or the end; the front end is never held back (every mic push taken, the service gets every sample).
    func testASlowHandlerCostsBoundedMemoryWithCountedDrops() throws {
        let server = try ReferenceServer()
        let core = try RecognitionCore(configuration: RecognitionConfiguration(service: Wire.dashScope.service(server),
                                                                                queueFullPolicy: .wait))
        final class Seen: @unchecked Sendable { // the event thread only; read after the end
            var droppable = 0
            var afterCompletion = 0
            var completed: RecognitionSummary?
            var error: RecognitionError?
        }
        let seen = Seen()
        let started = DispatchSemaphore(value: 0), hold = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        core.eventHandler = { event in
            if seen.completed != nil { seen.afterCompletion += 1 }
            switch event {
            case .started:
                started.signal()
                hold.wait() // the handler stalls while 84 s of audio are pushed
            case .audio, .level, .telemetry: seen.droppable += 1
            case .completed(let summary):
                seen.completed = summary
                ended.signal()
            case .error(let error):
                seen.error = error
                ended.signal()
            default: break
            }
        }
        try core.start()
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        // Speech (the service times a task out after 60 s of silence), with the far end as the reference.
        let (mic, reference) = (try TestVectors.int16("nearend_16k.wav").samples, try RecognitionEngineTests.vectors().reference)
        var refused = 0
        for _ in 0..<4 { // 84 s: more front-end events than the bound
            for offset in stride(from: 0, to: mic.count, by: 320) {
                let end = min(offset + 320, mic.count)
                reference[offset..<end].withUnsafeBufferPointer { _ = core.pushReference(samples: $0) }
                let result = mic[offset..<end].withUnsafeBufferPointer { core.pushMic(samples: $0) }
                if result.accepted != end - offset { refused += 1 }
                usleep(500)
            }
        }
        let frames = 4 * mic.count / 160
        hold.signal()
        try core.finish()
        XCTAssertEqual(ended.wait(timeout: .now() + 30), .success)
        let summary = try XCTUnwrap(seen.completed, "ended with \(String(describing: seen.error))")
        print("slow handler: \(frames) frames pushed, \(refused) pushes refused; \(seen.droppable) audio/level/telemetry "
              + "events delivered, \(summary.drops.eventsDropped) dropped and counted; service got "
              + "\(summary.statistics.audioBytesSent) bytes")
        XCTAssertEqual(refused, 0, "the front end was never held back by the handler")
        XCTAssertEqual(summary.statistics.audioBytesSent, 2 * (summary.frontEnd?.outputSamples ?? -1),
                       "the service got every processed sample")
        XCTAssertGreaterThan(summary.drops.eventsDropped, 0, "beyond the bound: dropped and counted")
        XCTAssertLessThanOrEqual(seen.droppable, AudioForwarder.frontEndBacklogLimit + 64, "at most the bound waited")
        XCTAssertEqual(seen.droppable + summary.drops.eventsDropped, 2 * frames + frames / 25, accuracy: frames / 10,
                       "what was delivered and what was dropped: about every frame's audio, level and echo telemetry")
        XCTAssertEqual(seen.afterCompletion, 0)
    }
}
