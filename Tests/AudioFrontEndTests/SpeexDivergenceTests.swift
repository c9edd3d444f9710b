import XCTest
@testable import AudioFrontEnd

/// The speex filter is cleared when its output stands above the mic after it converged
/// (`SpeexEchoCanceller.Configuration.divergenceResetDecibels`): once when the echo path changes under it, and
/// then it cancels the new path sooner than the old filter re-adapts; never for near-end speech over the echo.
final class SpeexDivergenceTests: XCTestCase {
    static let rate = 8000
    static let seconds = 10
    static let changeFrame = 700

    /// White noise `far` (at 8 kHz) and its echo through a sparse, exponentially decaying 300 ms room (RT60 0.3 s)
    /// drawn from `seed`.
    static func echo(of far: [Double], seed: UInt64) -> [Double] {
        var random = Random(seed: seed)
        let taps = stride(from: 0, to: rate * 300 / 1000, by: 4).map { i in
            (i, 0.5 * random.uniform() * pow(10, -3 * Double(i) / Double(rate) / 0.3))
        }
        var echo = [Double](repeating: 0, count: far.count)
        far.withUnsafeBufferPointer { x in
            echo.withUnsafeMutableBufferPointer { y in
                for (i, h) in taps {
                    for n in i..<x.count { y[n] += h * x[n - i] }
                }
            }
        }
        return echo
    }

    struct Random {
        var seed: UInt64
        mutating func uniform() -> Double { // splitmix64, deterministic
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    static let far: [Double] = {
        var random = Random(seed: 1)
        return (0..<(rate * seconds)).map { _ in 3000 * random.uniform() }
    }()
    static let before = echo(of: far, seed: 2)
    static let after = echo(of: far, seed: 3)

    /// Runs the canceller over `mic` (frames of 10 ms) and returns the reduction (dB, mic over output) of frames
    /// `range`, and the canceller.
    func reduction(_ mic: [Int16], frames range: Range<Int>, divergence: Float?) throws -> (Float, SpeexEchoCanceller) {
        var c = SpeexEchoCanceller.Configuration(sampleRate: Self.rate)
        c.residualEchoSuppression = false
        c.divergenceResetDecibels = divergence
        c.divergenceFrames = 5
        let speex = try SpeexEchoCanceller(configuration: c)
        let n = speex.frameLength
        let reference = Self.far.map { Int16(clamping: Int($0.rounded())) }
        var output = [Int16](repeating: 0, count: n)
        var micPower = 0.0, outPower = 0.0
        for f in 0..<(mic.count / n) {
            mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { r in
                    output.withUnsafeMutableBufferPointer { o in
                        _ = speex.process(capture: UnsafeBufferPointer(rebasing: m[f * n..<(f + 1) * n]),
                                          reference: UnsafeBufferPointer(rebasing: r[f * n..<(f + 1) * n]), output: o)
                    }
                }
            }
            guard range.contains(f) else { continue }
            for i in 0..<n {
                micPower += Double(mic[f * n + i]) * Double(mic[f * n + i])
                outPower += Double(output[i]) * Double(output[i])
            }
        }
        return (Float(10 * log10(micPower / max(outPower, 1))), speex)
    }

    /// Measured: 14.6 dB cleared, 1.2 dB with the old filter re-adapting.
    func testClearedOnceWhenThePathChangesAndCancelsItSooner() throws {
        let split = Self.changeFrame * Self.rate / 100
        let mic = (0..<Self.far.count).map { Int16(clamping: Int((($0 < split ? Self.before : Self.after)[$0]).rounded())) }
        let window = (Self.changeFrame + 50)..<(Self.changeFrame + 150)
        let (watched, speex) = try reduction(mic, frames: window, divergence: 0)
        let (unwatched, _) = try reduction(mic, frames: window, divergence: nil)
        XCTAssertEqual(speex.divergenceResets, 1)
        XCTAssertGreaterThan(watched, unwatched + 8, "0.5-1.5 s after the change: cleared \(watched) dB, old filter \(unwatched) dB")
    }

    func testNotClearedByNearEndSpeechOverTheEcho() throws {
        var random = Random(seed: 4)
        let start = Self.changeFrame * Self.rate / 100
        // a near-end talker as loud as the echo for 3 s (noise bursts of 200 ms on, 100 ms off)
        let echoRMS = sqrt(Self.before.reduce(0) { $0 + $1 * $1 } / Double(Self.before.count))
        let mic = (0..<Self.far.count).map { n -> Int16 in
            let near = n >= start && n < start + 3 * Self.rate && (n - start) % 2400 < 1600
                ? echoRMS * 3.0.squareRoot() * random.uniform() : 0
            return Int16(clamping: Int((Self.before[n] + near).rounded()))
        }
        let (_, speex) = try reduction(mic, frames: 0..<1, divergence: 0)
        XCTAssertEqual(speex.divergenceResets, 0)
    }
}
