import AllocationCounter
import XCTest
@testable import AudioFrontEnd

/// The speex filter's tail growth (`SpeexEchoCanceller.Configuration.grownTailMilliseconds`): it grows in a room
/// whose echo outlasts the short tail, not in a short room, goes back on reset, and allocates nothing while it
/// decides and switches.
final class SpeexTailGrowthTests: XCTestCase {
    static let rate = 8000

    /// White noise played into a room with an exponentially decaying, sparse impulse response of `rt60` seconds,
    /// 400 ms long: (reference, mic), `seconds` long, at 8 kHz.
    static func room(rt60: Double, seconds: Int) -> (reference: [Int16], mic: [Int16]) {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double { // splitmix64, deterministic
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53) * 2 - 1
        }
        // Every 4th tap non-zero keeps the convolution cheap; the decay is 60 dB over rt60 in amplitude squared.
        let taps = stride(from: 0, to: rate * 400 / 1000, by: 4).map { i in
            (i, 0.5 * uniform() * pow(10, -3 * Double(i) / Double(rate) / rt60))
        }
        let count = rate * seconds
        let far = (0..<count).map { _ in 3000 * uniform() }
        var mic = [Int16](repeating: 0, count: count)
        for n in 0..<count {
            var y = 0.0
            for (i, h) in taps where i <= n { y += h * far[n - i] }
            mic[n] = Int16(clamping: Int(y.rounded()))
        }
        return (far.map { Int16(clamping: Int($0.rounded())) }, mic)
    }

    func canceller() throws -> SpeexEchoCanceller {
        var c = SpeexEchoCanceller.Configuration(sampleRate: Self.rate)
        c.grownTailMilliseconds = 256
        return try SpeexEchoCanceller(configuration: c)
    }

    /// Runs `frames` frames of the room from frame `start`, wrapping around, into `output` (one frame, made by
    /// the caller so that running allocates nothing).
    func run(_ canceller: SpeexEchoCanceller, _ room: (reference: [Int16], mic: [Int16]), start: Int = 0, frames: Int,
             output: inout [Int16]) {
        let n = canceller.frameLength
        let available = room.mic.count / n
        room.mic.withUnsafeBufferPointer { m in
            room.reference.withUnsafeBufferPointer { r in
                output.withUnsafeMutableBufferPointer { o in
                    for i in start..<(start + frames) {
                        let f = i % available
                        _ = canceller.process(capture: UnsafeBufferPointer(rebasing: m[f * n..<(f + 1) * n]),
                                              reference: UnsafeBufferPointer(rebasing: r[f * n..<(f + 1) * n]),
                                              output: o)
                    }
                }
            }
        }
    }

    func testGrowsInALongRoomOnlyAndNotBackAfterReset() throws {
        let long = Self.room(rt60: 0.9, seconds: 12)
        let speex = try canceller()
        var output = [Int16](repeating: 0, count: speex.frameLength)
        run(speex, long, frames: 1200, output: &output)
        XCTAssertTrue(speex.tailGrown, "RT60 0.9 s: the 128 ms filter's response still high at its end after 12 s")
        speex.reset()
        XCTAssertFalse(speex.tailGrown, "reset goes back to the short tail")
        let short = Self.room(rt60: 0.1, seconds: 12)
        run(speex, short, frames: 1200, output: &output)
        XCTAssertFalse(speex.tailGrown, "RT60 0.1 s: the echo ends within 128 ms")
        var fixed = SpeexEchoCanceller.Configuration(sampleRate: Self.rate)
        fixed.grownTailMilliseconds = 128 // not above the tail: never grows
        let never = try SpeexEchoCanceller(configuration: fixed)
        run(never, long, frames: 1200, output: &output)
        XCTAssertFalse(never.tailGrown, "a grown tail not above the tail is no growth")
    }

    func testDecidingAndSwitchingAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let long = Self.room(rt60: 0.9, seconds: 12)
        let speex = try canceller()
        var output = [Int16](repeating: 0, count: speex.frameLength)
        run(speex, long, frames: 50, output: &output) // warm-up: the runtime allocates type metadata on first use
        afe_allocation_counter_start()
        run(speex, long, start: 50, frames: 1150, output: &output)
        let allocations = afe_allocation_counter_stop()
        XCTAssertTrue(speex.tailGrown, "the switch happened inside the counted frames")
        XCTAssertEqual(allocations, 0, "allocations in 1150 frames of looks, warm-up and the switch")
    }
}
