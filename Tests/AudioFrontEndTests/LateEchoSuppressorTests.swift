import XCTest
@testable import AudioFrontEnd

/// The late-echo suppressor on synthetic frames: residual echo that follows the echo estimate is attenuated
/// towards the floor, near-end speech well above it passes, and nothing changes while the cancellers pause.
final class LateEchoSuppressorTests: XCTestCase {
    /// A 10 ms frame of a 1 kHz tone at `decibels` dBFS (RMS).
    private func tone(_ decibels: Float, into frame: UnsafeMutableBufferPointer<Int16>, phase: Int) {
        let amplitude = powf(10, decibels / 20) * 32768 * Float(2).squareRoot()
        for i in frame.indices {
            frame[i] = Int16(clamping: Int(amplitude * sinf(2 * .pi * 1000 * Float(phase + i) / 16000)))
        }
    }

    private func level(_ frame: UnsafeMutableBufferPointer<Int16>) -> Float {
        LevelMeter.rmsDecibels(UnsafeBufferPointer(frame))
    }

    func testResidualFollowingTheEstimateIsSuppressedAndSpeechAboveItPasses() {
        var stage = LateEchoSuppressor(LateEchoSuppressor.Configuration())
        let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 160)
        defer { frame.deallocate() }
        // Residual echo 25 dB under an estimate at -20 dBFS for 5 s: the stage learns the ratio.
        var out: Float = 0
        for n in 0..<500 {
            tone(-45, into: frame, phase: n * 160)
            stage.process(frame, echoEstimate: -20, active: true)
            out = level(frame)
        }
        XCTAssertLessThan(out, -45 - 10, "residual echo after 5 s: \(out) dBFS")
        XCTAssertGreaterThan(out, -45 - 12.5, "floored at -12 dB: \(out) dBFS")
        // A near-end talker 20 dB above the residual: the gain comes back within one frame.
        tone(-25, into: frame, phase: 0)
        stage.process(frame, echoEstimate: -20, active: true)
        tone(-25, into: frame, phase: 160)
        stage.process(frame, echoEstimate: -20, active: true)
        XCTAssertEqual(level(frame), -25, accuracy: 0.5, "near end 20 dB above the residual")
    }

    func testPausedCancellersLeaveTheFrameAlone() {
        var stage = LateEchoSuppressor(LateEchoSuppressor.Configuration())
        let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 160)
        defer { frame.deallocate() }
        tone(-40, into: frame, phase: 0)
        let before = Array(frame)
        stage.process(frame, echoEstimate: -10, active: false)
        XCTAssertEqual(Array(frame), before)
    }

    func testOutOfRangeSettingsAreRejected() {
        var c = LateEchoSuppressor.Configuration()
        c.maximumSuppressionDecibels = -50
        XCTAssertThrowsError(try c.validate())
        c = LateEchoSuppressor.Configuration()
        c.quantile = 1
        XCTAssertThrowsError(try c.validate())
    }
}
