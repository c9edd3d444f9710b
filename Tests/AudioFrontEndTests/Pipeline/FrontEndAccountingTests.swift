import AllocationCounter
import AudioFrontEnd
import Foundation
import XCTest

final class FrontEndAccountingTests: XCTestCase {
    /// Every mic sample pushed yields exactly its share of output samples, for odd byte pushes and any rates.
    func testOutputCountIsExactForOddByteChunksAndRates() throws {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        var rng = SeededRandom(seed: seed)
        for (micRate, processingRate, outputRate) in [(44100, 16000, 16000), (48000, 16000, 8000), (16000, 16000, 48000),
                                                      (22050, 48000, 16000)] {
            var configuration = FrontEndConfiguration()
            configuration.mic = .init(sampleRate: micRate)
            configuration.reference = .init(sampleRate: micRate)
            configuration.processingRate = processingRate
            configuration.outputRate = outputRate
            configuration.encoding = FrontEndConfiguration.Encoding()
            let frontEnd = try FrontEnd(configuration: configuration)
            let collector = FrontEndCollector()
            frontEnd.delegate = collector
            try frontEnd.start()
            let sampleCount = micRate * 3 + 77
            let bytes: [UInt8] = (0..<(sampleCount * 2)).map { i in
                let sample = Int16(sin(Double(i / 2) * 0.05) * 8000)
                return i % 2 == 0 ? UInt8(truncatingIfNeeded: sample) : UInt8(truncatingIfNeeded: sample >> 8)
            }
            var offset = 0
            while offset < bytes.count {
                let n = min(bytes.count - offset, Int.random(in: 0...999, using: &rng))
                let result = bytes[offset..<(offset + n)].withUnsafeBytes { frontEnd.pushMic(bytes: $0) }
                XCTAssertEqual(result, PushResult(status: .ok, accepted: n), "seed \(seed)")
                offset += n
            }
            let summary = try frontEnd.finish()
            let expected = sampleCount * outputRate / micRate
            let label = "mic \(micRate) Hz → processing \(processingRate) → output \(outputRate), seed \(seed)"
            XCTAssertEqual(summary.micSamplesPushed, sampleCount, label)
            // No reference was ever pushed: nothing of it is missing (it was 160,320 samples per 10 s before).
            XCTAssertEqual(summary.drops, DropCounts(), label)
            XCTAssertEqual(collector.audio.count, expected, label)
            XCTAssertEqual(summary.outputSamples, expected, label)
            guard case .finished = collector.events.last else { return XCTFail("finished is not last: \(label)") }
            // Audio chunk positions are contiguous.
            var next = 0
            for case .audio(let chunk) in collector.events {
                XCTAssertEqual(chunk.position, next, label)
                next += chunk.samples.count
            }
            // The byte stream's tone survives: output RMS close to input RMS (no echo canceller input).
            XCTAssertGreaterThan(collector.events.filter { if case .opusPacket = $0 { true } else { false } }.count, 100, label)
        }
    }

    func testWrongStatesAndBadConfigurationsAreReported() throws {
        let frontEnd = try FrontEnd()
        let one: [Int16] = [1, 2, 3]
        XCTAssertEqual(one.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .notRunning)
        XCTAssertEqual(one.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }.status, .notRunning)
        XCTAssertThrowsError(try frontEnd.finish()) { XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidState) }
        try frontEnd.start()
        XCTAssertThrowsError(try frontEnd.start()) { XCTAssertEqual(($0 as? AudioFrontEndError)?.code, .invalidState) }
        XCTAssertEqual([UInt8]().withUnsafeBytes { frontEnd.pushMic(bytes: $0) }, PushResult(status: .ok, accepted: 0))
        try frontEnd.finish()
        XCTAssertEqual(one.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .notRunning)
        XCTAssertThrowsError(try frontEnd.finish())

        func rejects(_ change: (inout FrontEndConfiguration) -> Void, _ code: AudioFrontEndError.Code, _ label: String) {
            var configuration = FrontEndConfiguration()
            change(&configuration)
            XCTAssertThrowsError(try FrontEnd(configuration: configuration), label) { error in
                XCTAssertEqual((error as? AudioFrontEndError)?.code, code, "\(label): \(error)")
            }
        }
        rejects({ $0.mic = .init(sampleRate: 8000) }, .unsupportedSampleRate, "8 kHz mic with AEC")
        rejects({ $0.mic = .init(sampleRate: 8000); $0.echoCancellation = .off }, .unsupportedSampleRate, "8 kHz mic with VAD")
        rejects({ $0.processingRate = 44100 }, .unsupportedSampleRate, "44.1 kHz processing")
        rejects({ $0.mic = .init(sampleRate: 96000) }, .unsupportedSampleRate, "96 kHz mic")
        rejects({ $0.mic = .init(sampleRate: 16000, channelCount: 2, channelSelection: .channel(2)) }, .invalidConfiguration, "channel 2 of 2")
        rejects({ var e = FrontEndConfiguration.Encoding(); e.opus.frameDuration = .milliseconds5; $0.encoding = e }, .invalidFrameLength, "5 ms packets")
        rejects({ var e = FrontEndConfiguration.Encoding(); e.opus.bitrate = 1000; $0.encoding = e }, .invalidConfiguration, "1 kb/s")
        var fine = FrontEndConfiguration()
        fine.mic = .init(sampleRate: 8000)
        fine.echoCancellation = .off
        fine.voiceDetection = nil
        fine.processingRate = 8000
        XCTAssertNoThrow(try FrontEnd(configuration: fine), "8 kHz with AEC and VAD off is allowed")
    }

    /// A stalled consumer: the mic ring fills, pushes accept what fits and say so, nothing is overwritten, and
    /// everything accepted comes out once the consumer resumes.
    func testBufferFullWhenTheConsumerStallsAndNothingAcceptedIsLost() throws {
        final class Staller: FrontEndDelegate, @unchecked Sendable {
            let gate = NSCondition()
            var open = false
            var samples = 0
            func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
                gate.lock(); while !open { gate.wait() }; gate.unlock()
                if case .audio(let chunk) = event { samples += chunk.samples.count }
            }
        }
        var configuration = FrontEndConfiguration()
        configuration.micBufferMilliseconds = 200
        let frontEnd = try FrontEnd(configuration: configuration)
        let staller = Staller()
        frontEnd.delegate = staller
        try frontEnd.start()
        let chunk = [Int16](repeating: 100, count: 1600)
        var accepted = 0
        var sawFull = false
        for _ in 0..<200 {
            let result = chunk.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            accepted += result.accepted
            if result.status == .bufferFull { sawFull = true; XCTAssertLessThan(result.accepted, chunk.count); break }
        }
        XCTAssertTrue(sawFull, "a stalled consumer must make pushMic report bufferFull")
        staller.gate.lock(); staller.open = true; staller.gate.broadcast(); staller.gate.unlock()
        let summary = try frontEnd.finish()
        XCTAssertEqual(summary.micSamplesPushed, accepted)
        XCTAssertEqual(staller.samples, accepted, "every accepted sample comes out")
        XCTAssertGreaterThan(summary.drops.micRefusedBytes, 0, "refused bytes are counted")
    }

    /// Push → stages → event ring allocates nothing after warm-up (default chain plus Opus and Ogg, 48 kHz mic
    /// and reference).
    func testPushPathAllocatesNothingAfterWarmUp() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let allocations = try FrontEndLockTests.count { $0.encoding = FrontEndConfiguration.Encoding() }.allocations
        XCTAssertEqual(allocations, 0, "heap allocations on the push thread over 800 frames after warm-up")
    }

    /// The same with the late-echo suppressor on (``FrontEndConfiguration/lateEchoSuppression``).
    func testPushPathWithLateEchoSuppressionAllocatesNothingAfterWarmUp() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let allocations = try FrontEndLockTests.count { $0.lateEchoSuppression = LateEchoSuppressor.Configuration() }.allocations
        XCTAssertEqual(allocations, 0, "heap allocations on the push thread over 800 frames after warm-up")
    }
}
