#if canImport(Glibc)
import Glibc
#endif

/// A seeded synthetic far end and its echo at any rate, for rates the test vectors do not cover (8, 32 kHz) and
/// for allocation tests.
///
/// Far end: noise "syllables" with changing spectral peak and level and pauses (see below). Echo: the far end through a sparse decaying impulse response (direct path plus reflections
/// within 20 ms), half amplitude, delayed by `delayMilliseconds`, plus a faint noise floor.
struct SyntheticEcho {
    let sampleRate: Int
    let reference: [Int16]
    let mic: [Int16]
    let seed: UInt64

    init(sampleRate: Int, seconds: Double, delayMilliseconds: Int, seed: UInt64 = 0x5EED) {
        self.sampleRate = sampleRate
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let count = Int(seconds * Double(sampleRate))
        // Syllables: 80-250 ms of noise through a two-pole resonator at a random 300-3000 Hz, random level,
        // a quarter of them silent, so the spectrum and the level change as in speech.
        var far = [Float](repeating: 0, count: count)
        var i = 0
        var (y1, y2): (Float, Float) = (0, 0)
        while i < count {
            let length = Int((0.08 + 0.17 * random.unit()) * Float(sampleRate))
            let silent = random.unit() < 0.25
            let frequency = 300 + 2700 * random.unit()
            let level = silent ? 0 : 0.05 + 0.25 * random.unit()
            let radius: Float = 0.97
            let a1 = 2 * radius * cosf(2 * .pi * frequency / Float(sampleRate)), a2 = -radius * radius
            let gain = (1 - radius) * 2
            for k in i..<min(i + length, count) {
                let y = a1 * y1 + a2 * y2 + gain * random.uniform()
                (y2, y1) = (y1, y)
                far[k] = level * y
            }
            i += length
        }
        var taps: [(offset: Int, gain: Float)] = [(0, 1)]
        for k in 1...10 {
            let offset = Int(random.unit() * 0.02 * Float(sampleRate))
            taps.append((offset, (random.unit() - 0.5) * expf(-Float(k) / 4)))
        }
        let delay = delayMilliseconds * sampleRate / 1000
        var echo = [Float](repeating: 0, count: count)
        for i in 0..<count {
            var sum: Float = 0
            for tap in taps where i - delay - tap.offset >= 0 { sum += tap.gain * far[i - delay - tap.offset] }
            echo[i] = 0.5 * sum + 0.0005 * random.uniform()
        }
        reference = far.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        mic = echo.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
    }
}

/// A small deterministic generator (SplitMix64), so failures can be reproduced from the printed seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
    /// Uniform in [-1, 1).
    mutating func uniform() -> Float { unit() * 2 - 1 }
    /// Uniform in [0, 1) at double precision.
    mutating func unitDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
