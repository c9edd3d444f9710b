import Foundation

/// The simulated room of `afe converse`: the device's loudspeaker reaches the mic through an impulse response
/// (with a bulk delay and a gain), and the mic adds a user who talks and a noise floor. Deterministic: the
/// synthetic impulse response and the noise come from seeded generators, so the same options give the same mic.
struct ConverseRoom {
    /// The echo path, gain and bulk delay included: mic echo = impulse ∗ played.
    let impulse: [Float]
    /// The played samples the convolution still needs (the last `impulse.count - 1`), oldest first.
    private var history: [Float]
    private var noise: SeededNoise
    private let noiseAmplitude: Float

    /// - Parameters:
    ///   - impulse: the room's response without delay or gain (tap 0 = direct path).
    ///   - delaySamples: the bulk delay of the echo path (the device's output latency plus the air).
    ///   - gainDecibels: the echo path's gain after the impulse response.
    ///   - noiseDecibels: the RMS of the white noise floor, dBFS.
    init(impulse: [Float], delaySamples: Int, gainDecibels: Double, noiseDecibels: Double, seed: UInt64) {
        let gain = Float(pow(10, gainDecibels / 20))
        self.impulse = [Float](repeating: 0, count: delaySamples) + impulse.map { $0 * gain }
        history = [Float](repeating: 0, count: self.impulse.count - 1)
        noise = SeededNoise(seed: seed)
        noiseAmplitude = Float(pow(10, noiseDecibels / 20) * 32768) // the Gaussian's RMS is 1
    }

    /// The synthetic room of the test vectors (TestVectors/README.md: direct path at tap 0 with gain 1, five early
    /// reflections, a Gaussian tail from 4 ms decaying 60 dB in `rt60` seconds, direct-to-reverberant 6 dB, 30 % of
    /// the reverberant energy in the reflections), made with a seeded generator.
    static func syntheticImpulse(rate: Int, rt60: Double, seed: UInt64) -> [Float] {
        var random = SeededNoise(seed: seed)
        let count = max(1, Int(min(1.5, rt60 * 1.4) * Double(rate)))
        var reflections = [Double](repeating: 0, count: count)
        for (milliseconds, gain) in [(1.9, 0.45), (3.7, -0.35), (6.1, 0.3), (9.4, -0.22), (13.2, 0.18)] {
            let tap = Int((milliseconds * Double(rate) / 1000).rounded())
            if tap < count { reflections[tap] += gain * (0.8 + 0.4 * random.uniform()) }
        }
        let tailStart = Int((0.004 * Double(rate)).rounded())
        let tail = (0..<count).map { index -> Double in
            index < tailStart ? 0 : random.gaussian() * exp(-3 * log(10) * Double(index) / Double(rate) / rt60)
        }
        func energy(_ values: [Double]) -> Double { max(values.reduce(0) { $0 + $1 * $1 }, .leastNonzeroMagnitude) }
        let reflectionScale = (0.3 / energy(reflections)).squareRoot(), tailScale = (0.7 / energy(tail)).squareRoot()
        let reverberation = zip(reflections, tail).map { $0 * reflectionScale + $1 * tailScale }
        let scale = (pow(10, -6.0 / 10) / energy(reverberation)).squareRoot() // direct-to-reverberant 6 dB
        var impulse = reverberation.map { Float($0 * scale) }
        impulse[0] = 1
        return impulse
    }

    /// The mic for one block: the echo of `played` (the samples handed to the device in this block) plus
    /// `user` (the talker at the mic, same length) plus the noise floor, as 16-bit samples (clipped).
    mutating func mic(played: UnsafeBufferPointer<Int16>, user: ArraySlice<Float>, into mic: inout [Int16]) {
        let count = played.count
        let taps = impulse.count
        history.append(contentsOf: played.map(Float.init))
        mic.removeAll(keepingCapacity: true)
        impulse.withUnsafeBufferPointer { h in
            history.withUnsafeBufferPointer { x in
                // x[taps - 1 + n] is played[n]; y[n] = Σ h[k] x[taps - 1 + n - k]
                for n in 0..<count {
                    var sum: Float = 0
                    let newest = taps - 1 + n
                    for k in 0..<taps { sum += h[k] * x[newest - k] }
                    let talker = user.isEmpty ? 0 : user[user.startIndex + n]
                    let value = sum + talker * 32768 + noiseAmplitude * Float(noise.gaussian())
                    mic.append(Int16(clamping: Int(value.rounded())))
                }
            }
        }
        history.removeFirst(count)
    }
}

/// A small seeded generator (SplitMix64): uniform and Gaussian values, the same on every machine.
struct SeededNoise {
    private var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(uniform(), 1e-300), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}
