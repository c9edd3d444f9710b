import AudioFrontEnd

/// The mic and the reference of a soak as 16-bit samples at one rate, the files repeated to the wanted length.
struct SoakAudio {
    let mic: [Int16]
    let reference: [Int16]
    let sampleRate: Int

    init(mic micPath: String, reference referencePath: String, seconds: Double) throws {
        let micFile = try AudioFile(contentsOf: micPath)
        let referenceFile = try AudioFile(contentsOf: referencePath)
        guard micFile.sampleRate == referenceFile.sampleRate else {
            throw SoakFailure("mic and reference rates differ (\(micFile.sampleRate) vs \(referenceFile.sampleRate) Hz)")
        }
        sampleRate = micFile.sampleRate
        let count = Int(seconds * Double(sampleRate))
        mic = Self.repeated(micFile.downmixed(), count: count)
        reference = Self.repeated(referenceFile.downmixed(), count: count)
    }

    private static func repeated(_ samples: [Float], count: Int) -> [Int16] {
        guard !samples.isEmpty else { return [] }
        return (0..<count).map { index in
            Int16(max(-32768, min(32767, (samples[index % samples.count] * 32768).rounded())))
        }
    }

    var seconds: Double { Double(mic.count) / Double(sampleRate) }
}

struct SoakFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
