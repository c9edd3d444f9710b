import Foundation
import XCTest
@testable import AudioFrontEnd

/// A push longer than ``FrontEnd/maximumPushMilliseconds`` takes its first second and refuses the rest, counted:
/// one call never holds its caller for the processing of minutes of audio (a single 16 MB push blocked for about
/// 10 s in a release build before the bound).
final class FrontEndLargePushTests: XCTestCase {
    /// 16 MB of mic bytes (8 M samples, 524 s at 16 kHz) in one push: 1 s taken, the rest refused and counted,
    /// `bufferFull`; the same for samples, and for the reference.
    func testOneHugePushTakesOneSecondAndCountsTheRest() throws {
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndHarness.plain())
        let second = frontEnd.maximumMicPushSamples
        XCTAssertEqual(second, 16000)
        let huge = [UInt8](repeating: 0x11, count: 16 << 20)
        let started = ContinuousClock.now
        let mic = huge.withUnsafeBytes { frontEnd.pushMic(bytes: $0) }
        // Generous bound (debug build, shared machine): 1 s of audio, not 524 s, was processed inline.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(mic, PushResult(status: .bufferFull, accepted: 2 * second))
        let samples = [Int16](repeating: 7, count: 3 * second + 5)
        let micSamples = samples.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
        XCTAssertEqual(micSamples.status, .bufferFull)
        XCTAssertLessThanOrEqual(micSamples.accepted, second)
        let reference = huge.withUnsafeBytes { frontEnd.pushReference(bytes: $0) }
        XCTAssertEqual(reference, PushResult(status: .bufferFull, accepted: 2 * frontEnd.maximumReferencePushSamples))
        let referenceSamples = samples.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
        XCTAssertEqual(referenceSamples, PushResult(status: .bufferFull, accepted: second))
        let summary = try frontEnd.finish()
        let micRefused = (huge.count - mic.accepted) + 2 * (samples.count - micSamples.accepted)
        XCTAssertEqual(summary.drops.micRefusedBytes, micRefused, "every refused mic byte counted")
        XCTAssertEqual(summary.drops.referenceRefusedBytes, (huge.count - reference.accepted) + 2 * (samples.count - second),
                       "every refused reference byte counted")
        let reported = collector.events.compactMap { if case .drops(let d) = $0 { d } else { nil } }.last
        XCTAssertEqual(reported?.referenceRefusedBytes, summary.drops.referenceRefusedBytes, "the drops event carries it")
        XCTAssertEqual(summary.micSamplesPushed, second + micSamples.accepted)
    }

    /// An app that pushes the rest again (as `bufferFull` asks) gets all of a long buffer through in bounded
    /// slices, sample for sample.
    func testTheRestPushedAgainArrivesWhole() throws {
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndHarness.plain())
        let input = (0..<(16000 * 5 + 77)).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        var offset = 0, calls = 0
        while offset < input.count {
            let result = input[offset...].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            XCTAssertLessThanOrEqual(result.accepted, frontEnd.maximumMicPushSamples)
            offset += result.accepted
            calls += 1
            if result.accepted == 0 { usleep(1000) }
        }
        let summary = try frontEnd.finish()
        XCTAssertGreaterThanOrEqual(calls, 6, "five seconds need at least six bounded slices")
        XCTAssertEqual(summary.micSamplesPushed, input.count)
        XCTAssertTrue(collector.audio == input, "the output is the input, sample for sample")
    }

    /// The bound follows the input format: 1 s at 48 kHz stereo is 96,000 interleaved samples.
    func testTheBoundIsOneSecondOfTheInputFormat() throws {
        let frontEnd = try FrontEnd(configuration: FrontEndHarness.plain(mic: .init(sampleRate: 48000, channelCount: 2)))
        XCTAssertEqual(frontEnd.maximumMicPushSamples, 96000)
        XCTAssertEqual(FrontEnd.maximumPushMilliseconds, 1000)
    }
}
