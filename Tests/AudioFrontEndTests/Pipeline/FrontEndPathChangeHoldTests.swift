import AllocationCounter
@testable import AudioFrontEnd
import XCTest

/// The hold of the delivered output after a detected echo path change (`PathChangeOutputLimiter`,
/// `WebRTCEchoCanceller.Configuration.pathChangeOutputDepthDecibels`, 25 dB in the default chain; issue 12,
/// branch reconv23).
final class FrontEndPathChangeHoldTests: XCTestCase {
    private static func frame(_ amplitude: Int16) -> [Int16] { (0..<160).map { $0 % 2 == 0 ? amplitude : -amplitude } }
    private static func level(_ x: [Int16]) -> Float {
        10 * log10f(max(1e-16, x.reduce(Float(0)) { $0 + Float($1) * Float($1) } / Float(x.count) / (32768 * 32768)))
    }

    /// Armed, a frame as loud as the mic ends at the depth under it (after the first frame's ramp); not armed,
    /// or with the far end silent, nothing changes and a silent frame does not use up the hold.
    func testLimiterHoldsTheOutputUnderTheMicOnlyWhileArmedAndPlaying() {
        var limiter = PathChangeOutputLimiter(depthDecibels: 25, holdMilliseconds: 50)
        var x = Self.frame(3277) // -20 dBFS
        x.withUnsafeMutableBufferPointer { limiter.process($0, mic: -20, playing: true) }
        XCTAssertEqual(x, Self.frame(3277), "not armed: untouched")
        limiter.arm()
        x.withUnsafeMutableBufferPointer { limiter.process($0, mic: -20, playing: false) }
        XCTAssertEqual(x, Self.frame(3277), "far end silent: untouched")
        var levels: [Float] = []
        for _ in 0..<5 {
            var y = Self.frame(3277)
            y.withUnsafeMutableBufferPointer { limiter.process($0, mic: -20, playing: true) }
            levels.append(Self.level(y))
        }
        XCTAssertEqual(levels[4], -45, accuracy: 0.5, "held 25 dB under the mic")
        XCTAssertEqual(limiter.limitedFrames, 5, "the silent frame did not count")
        XCTAssertFalse(limiter.isIdle)
        var z = Self.frame(3277)
        z.withUnsafeMutableBufferPointer { limiter.process($0, mic: -20, playing: true) } // ramp back to 1
        z = Self.frame(3277)
        z.withUnsafeMutableBufferPointer { limiter.process($0, mic: -20, playing: true) }
        XCTAssertEqual(z, Self.frame(3277), "after the hold the output passes again")
        XCTAssertTrue(limiter.isIdle)
    }

    /// FrontEndPathChangeTests' scene (the room changes at 9 s): with the default's hold, the windows from 0.5 to
    /// 1 s after the change stand within 6 dB of the level before (at most 25 dB; without the hold the 0.5-0.75 s
    /// window does not), the windows from 0.25 s stand above those without it, and the output before the change is
    /// the same sample for sample (nothing is armed until the speex reset). Measured (250 ms windows from 0.25 s):
    /// held 19.0 / 27.3 / 56.9 dB, without 10.7 / 24.8 / 56.9 (the first window starts before the reset fires).
    func testHoldRaisesTheReductionRightAfterAPathChangeAndNothingBefore() throws {
        let (mic, reference) = FrontEndPathChangeTests.scene()
        let held = FrontEndConfiguration()
        guard case .speexThenWebRTC(let speex, var webRTC) = held.echoCancellation else {
            return XCTFail("the default chain is speex then WebRTC")
        }
        XCTAssertEqual(webRTC.pathChangeOutputDepthDecibels, 25, "the default chain holds 25 dB")
        var unheld = held
        webRTC.pathChangeOutputDepthDecibels = nil
        unheld.echoCancellation = .speexThenWebRTC(speex, webRTC)
        let plain = try FrontEndHarness.run(unheld, mic: mic, reference: reference).alignedAudio
        let holding = try FrontEndHarness.run(held, mic: mic, reference: reference).alignedAudio
        let c = FrontEndPathChangeTests.changeSecond
        let split = Int(c * Double(FrontEndPathChangeTests.rate))
        XCTAssertEqual(Array(holding[..<split]), Array(plain[..<split]), "before the change: the default's output")
        let before = FrontEndPathChangeTests.windows(mic: mic, output: holding, from: c - 3, to: c)
        let after = FrontEndPathChangeTests.windows(mic: mic, output: holding, from: c + 0.25, to: c + 1)
        let afterPlain = FrontEndPathChangeTests.windows(mic: mic, output: plain, from: c + 0.25, to: c + 1)
        let late = FrontEndPathChangeTests.windows(mic: mic, output: holding, from: c + 0.5, to: c + 1)
        func show(_ v: [Double]) -> String { v.map { String(format: "%.1f", $0) }.joined(separator: " ") }
        print("MEASURED path change hold: after, held \(show(after)); after, default \(show(afterPlain))")
        let target = min(before.sorted()[before.count / 2] - 6, 25)
        XCTAssertGreaterThan(late.count, 1)
        XCTAssertGreaterThanOrEqual(late.min() ?? 0, target, "held windows from 0.5 s within 6 dB of before (at most 25 dB)")
        let mean = { (v: [Double]) in v.reduce(0, +) / Double(max(1, v.count)) }
        XCTAssertGreaterThan(mean(after), mean(afterPlain) + 1, "the hold raises the reduction (else it never armed)")
    }

    /// The limiter while it holds (armed, far end playing, scaling every frame) allocates nothing; the push path
    /// of the default chain, the hold configured (idle: the echo vectors have no path change), neither.
    func testNoAllocationWhileHoldingOrIdle() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        var limiter = PathChangeOutputLimiter(depthDecibels: 25, holdMilliseconds: 1000)
        let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 160)
        defer { frame.deallocate() }
        afe_allocation_counter_start()
        limiter.arm()
        for i in 0..<120 {
            frame.initialize(repeating: Int16(1000 + i))
            limiter.process(frame, mic: -30, playing: true)
        }
        let direct = afe_allocation_counter_stop()
        XCTAssertEqual(direct, 0, "heap allocations in 120 held frames")
        XCTAssertEqual(limiter.limitedFrames, 100)
        let pushed = try FrontEndLockTests.count { _ in }.allocations // the default chain, hold configured
        XCTAssertEqual(pushed, 0, "heap allocations on the push thread over 800 frames after warm-up")
    }
}
