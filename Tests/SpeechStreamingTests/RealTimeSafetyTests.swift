import AllocationCounter
import Foundation
import SpeechStreaming
import XCTest

/// `send(audio:)` and `send(samples:)` run on the audio thread: no allocation, whether the audio is
/// accepted, refused for a full queue, or refused with no task.
final class RealTimeSafetyTests: XCTestCase {
    func testSendAllocatesNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let server = try ReferenceServer()
        var options = ConnectionOptions()
        options.audioQueueCapacityBytes = 64 * 1024 // small, so the queue-full path runs too
        let session = try SpeechStreamingSession(configuration: DashScopeConfiguration(
            url: WireFamily.dashScope.url(server), apiKey: "key", connection: options))
        let recorder = EventRecorder()
        session.delegate = recorder
        let frame = [Int16](repeating: 300, count: 160) // 10 ms at 16 kHz
        var results: [AudioSendResult: Int] = [:]
        func burst(_ count: Int, count results: inout [AudioSendResult: Int]) -> Int64 {
            afe_allocation_counter_start()
            var accepted = 0, full = 0, inactive = 0
            frame.withUnsafeBufferPointer { samples in
                for index in 0..<count {
                    let result = index % 2 == 0 ? session.send(samples: samples)
                        : session.send(audio: UnsafeRawBufferPointer(samples))
                    switch result {
                    case .accepted: accepted += 1
                    case .queueFull: full += 1
                    case .inactive, .invalidAudio: inactive += 1
                    }
                }
            }
            let allocations = afe_allocation_counter_stop()
            results[.accepted, default: 0] += accepted
            results[.queueFull, default: 0] += full
            results[.inactive, default: 0] += inactive
            return allocations
        }
        _ = burst(100, count: &results) // warm-up with no task (the runtime allocates metadata on first use)
        try session.start()
        XCTAssertNotNil(recorder.wait { if case .started = $0 { true } else { false } })
        _ = burst(100, count: &results) // warm-up with a task
        results = [:]
        var allocations: Int64 = 0
        for _ in 0..<10 {
            allocations += burst(1000, count: &results)
            usleep(2000)
        }
        session.stop()
        allocations += burst(1000, count: &results) // refused after stop
        XCTAssertEqual(allocations, 0, "allocations in 11,000 sends: \(results)")
        XCTAssertGreaterThan(results[.accepted] ?? 0, 1000, "\(results)")
        XCTAssertGreaterThan(results[.queueFull] ?? 0, 0, "the full-queue path ran: \(results)")
        XCTAssertEqual(results[.inactive], 1000, "\(results)")
        XCTAssertGreaterThan(session.statistics.overruns, 0)
        // A control: the counter does see an allocation on this thread.
        afe_allocation_counter_start()
        let array = [Int](repeating: 1, count: 100)
        XCTAssertGreaterThan(afe_allocation_counter_stop(), 0, "counter saw nothing for \(array.count)")
        guard case .completed = recorder.waitForEnd() else { return XCTFail("\(recorder.errors)") }
    }
}
