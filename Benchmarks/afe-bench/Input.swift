import AudioFrontEnd

/// The benchmark's input: a mic recording with echo and the reference that was played, both 48 kHz mono int16,
/// looped to the requested length (both loop at the same point, so they stay aligned).
struct BenchmarkInput {
    static let micFile = "echo_d0ms_48k.wav"
    static let referenceFile = "farend_48k.wav"
    let mic: [Int16]
    let reference: [Int16]
    let sampleRate: Int

    init(vectors: String, seconds: Double) throws {
        let mic = try AudioFile(contentsOf: vectors + "/" + Self.micFile)
        let reference = try AudioFile(contentsOf: vectors + "/" + Self.referenceFile)
        guard mic.sampleRate == 48000, reference.sampleRate == 48000, mic.channelCount == 1 else {
            throw BenchmarkError("the input must be 48 kHz mono: \(Self.micFile), \(Self.referenceFile)")
        }
        sampleRate = mic.sampleRate
        let frames = Int(seconds * 100)
        let count = frames * sampleRate / 100
        self.mic = Self.loop(mic.int16Samples, to: count)
        self.reference = Self.loop(reference.int16Samples, to: count)
    }

    private static func loop(_ samples: [Int16], to count: Int) -> [Int16] {
        var out = [Int16]()
        out.reserveCapacity(count)
        while out.count < count { out += samples.prefix(count - out.count) }
        return out
    }

    var frameLength: Int { sampleRate / 100 }
    var frameCount: Int { mic.count / frameLength }
    var seconds: Double { Double(frameCount) / 100 }

    /// The input resampled to `rate` (speex quality 5, as the pipeline does), for the per-stage runs.
    func resampled(to rate: Int) throws -> (mic: [Int16], reference: [Int16]) {
        func convert(_ samples: [Int16]) throws -> [Int16] {
            let resampler = try SpeexResampler(inputRate: sampleRate, outputRate: rate)
            var out = [Int16](repeating: 0, count: samples.count * rate / sampleRate + 64)
            let produced = samples.withUnsafeBufferPointer { input in
                out.withUnsafeMutableBufferPointer { resampler.process(input, into: $0).produced }
            }
            return Array(out.prefix(produced))
        }
        return (try convert(mic), try convert(reference))
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
