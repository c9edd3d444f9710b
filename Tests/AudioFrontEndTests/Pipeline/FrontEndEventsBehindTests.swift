import AllocationCounter
import Foundation
import Synchronization
import XCTest
@testable import AudioFrontEnd

/// ``FrontEndConfiguration/EventsBehind/dropAppEvents``: with nobody draining the events, every frame is still
/// processed and handed to the audio sink (the service), the VAD events all arrive once the consumer is back,
/// and the app-only events dropped are counted exactly (issue 13 part 3: a slow app callback must not stall the
/// audio to the service).
final class FrontEndEventsBehindTests: XCTestCase {
    /// Counts what the processing thread hands the sink (the service's path).
    final class CountingSink: FrontEndAudioSink, @unchecked Sendable {
        let samples = Atomic<Int>(0)
        let packets = Atomic<Int>(0)
        func frontEnd(processed samples: UnsafeBufferPointer<Int16>, position: Int) {
            self.samples.add(samples.count, ordering: .relaxed)
        }
        func frontEnd(encoded packet: UnsafeRawBufferPointer, granuleAdvance48k: Int, isLast: Bool) {
            packets.add(1, ordering: .relaxed)
        }
    }

    /// The default VAD and Opus in Ogg, no echo cancellation (no reference in this test).
    static func configuration(_ behind: FrontEndConfiguration.EventsBehind) -> FrontEndConfiguration {
        var configuration = FrontEndHarness.plain()
        configuration.voiceDetection = FrontEndConfiguration.VoiceDetection()
        configuration.encoding = FrontEndConfiguration.Encoding()
        configuration.whenEventsBehind = behind
        return configuration
    }

    static func isAppOnly(_ event: FrontEndEvent) -> Bool {
        switch event {
        case .audio, .level, .telemetry, .opusPacket, .oggPage: true
        default: false
        }
    }

    static func speech(_ events: [FrontEndEvent]) -> [String] {
        events.compactMap {
            switch $0 {
            case .speechStarted(let ms): "start \(ms)"
            case .speechEnded(let ms): "end \(ms)"
            default: nil
            }
        }
    }

    /// 42 s of speech pushed in 10 ms pieces as fast as possible while the drain thread is held in its first
    /// callback (the event rings hold about 4 s). Every push is taken whole, the sink gets every sample and
    /// packet, and after the release the speech events are those of a lossless run (the default mode, drained
    /// normally), in order; app-only events received plus `appEventsDropped` equals the lossless run's count.
    /// With the default mode the pushes return `bufferFull` once the rings and the mic buffer are full.
    func testFramesAreProcessedAndSentWhileNobodyDrains() throws {
        let speech = try StageRunner.samples("nearend_16k.wav")
        let input = speech + speech

        let reference = try FrontEndHarness.run(Self.configuration(.waitForConsumer), mic: input, reference: nil)
        let referenceAppEvents = reference.events.filter(Self.isAppOnly).count
        let referenceSpeech = Self.speech(reference.events)
        XCTAssertGreaterThan(referenceSpeech.count, 4, "the vector has speech segments")

        let frontEnd = try FrontEnd(configuration: Self.configuration(.dropAppEvents))
        let holder = FrontEndLeftBehindTests.Holder()
        let collector = FrontEndCollector()
        final class Tee: FrontEndDelegate, @unchecked Sendable {
            let holder: FrontEndLeftBehindTests.Holder, collector: FrontEndCollector
            init(_ holder: FrontEndLeftBehindTests.Holder, _ collector: FrontEndCollector) {
                self.holder = holder
                self.collector = collector
            }
            func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
                holder.frontEnd(frontEnd, didProduce: event) // blocks until released
                collector.frontEnd(frontEnd, didProduce: event)
            }
        }
        let tee = Tee(holder, collector)
        let sink = CountingSink()
        frontEnd.delegate = tee
        frontEnd.audioSink = sink
        try frontEnd.start()
        var offset = 0, refused = 0
        let counted = afe_lock_counter_available() == 1 && afe_allocation_counter_available() == 1
        var locks: afe_lock_counts?, allocations: Int64 = 0
        while offset < input.count {
            if counted && offset == 160 * 1000 { // 10 s in: long past the rings' 4 s, every frame drops
                afe_allocation_counter_start()
                afe_lock_counter_start()
            }
            let end = min(input.count, offset + 160)
            let result = input[offset..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            if result.status != .ok || result.accepted != end - offset { refused += 1 }
            offset = end
        }
        if counted {
            locks = afe_lock_counter_stop()
            allocations = afe_allocation_counter_stop()
        }
        XCTAssertEqual(refused, 0, "no push refused while nobody drains (\(input.count / 160) pushes)")
        if let locks { // the dropping path is the real-time path: no allocation, no lock (no WebRTC stage here)
            XCTAssertEqual(allocations, 0, "allocations on the push thread over 3,200 dropping frames")
            XCTAssertEqual(locks.mutex_locks + locks.mutex_trylocks + locks.rwlocks + locks.semaphore_waits, 0,
                           "locks on the push thread over 3,200 dropping frames")
            print("MEASURED events behind, push thread over 3,200 frames dropping their app events: \(allocations) allocations, "
                + "\(locks.mutex_locks) mutex locks")
        }
        XCTAssertEqual(sink.samples.load(ordering: .relaxed), input.count,
                       "every frame processed and sent while the drain is held")
        XCTAssertEqual(frontEnd.chain.framesProcessed, input.count / 160)
        let droppedWhileHeld = frontEnd.appEventsDropped
        XCTAssertGreaterThan(droppedWhileHeld, 0, "the rings hold about 4 s: app-only events were dropped")
        holder.release()
        let summary = try frontEnd.finish()

        let events = collector.events
        XCTAssertEqual(Self.speech(events), referenceSpeech, "every VAD event arrives, in order, as in a lossless run")
        let received = events.filter(Self.isAppOnly).count
        XCTAssertEqual(received + frontEnd.appEventsDropped, referenceAppEvents,
                       "app-only events received + dropped = the lossless run's (received \(received), dropped \(frontEnd.appEventsDropped))")
        XCTAssertEqual(summary.drops.eventOverruns, frontEnd.appEventsDropped, "the summary carries the drops")
        XCTAssertEqual(summary.outputSamples, input.count)
        XCTAssertEqual(summary.outputSamples, reference.summary?.outputSamples)
        XCTAssertEqual(sink.samples.load(ordering: .relaxed), input.count)
        XCTAssertEqual(summary.drops.micRefusedBytes, 0)
        XCTAssertTrue(events.contains { if case .finished = $0 { true } else { false } }, "the end arrives")
        let reports = events.compactMap { if case .drops(let d) = $0 { d } else { nil } }
        XCTAssertEqual(reports.last?.eventOverruns, frontEnd.appEventsDropped, "the last drop report is exact")
        XCTAssertLessThan(reports.count, 20, "drop reports are not one per push while dropping: \(reports.count)")
        print("MEASURED events behind: \(input.count / 160) frames, app-only events \(referenceAppEvents) in the lossless run, "
            + "received \(received), dropped \(frontEnd.appEventsDropped) (\(droppedWhileHeld) while held), "
            + "speech events \(referenceSpeech.count), drop reports \(reports.count)")
    }

    /// The default keeps lossless backpressure: with the drain held, pushes are refused once the rings and the
    /// mic buffer are full, and nothing is dropped.
    func testTheDefaultStillWaitsForTheConsumer() throws {
        let frontEnd = try FrontEnd(configuration: Self.configuration(.waitForConsumer))
        let holder = FrontEndLeftBehindTests.Holder()
        frontEnd.delegate = holder
        try frontEnd.start()
        let input = FrontEndLeftBehindTests.ramp(16000 * 10)
        var offset = 0, refused = 0
        while offset < input.count {
            let end = min(input.count, offset + 160)
            let result = input[offset..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            if result.status == .bufferFull { refused += 1 }
            offset = end
        }
        XCTAssertGreaterThan(refused, 0, "the default waits for the consumer")
        XCTAssertEqual(frontEnd.appEventsDropped, 0)
        holder.release()
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.drops.eventOverruns, 0)
    }
}
