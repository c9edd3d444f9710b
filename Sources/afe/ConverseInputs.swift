import AudioFrontEnd
import Foundation

/// The files of `afe converse`: the user's speech and the room's impulse response, at the device's rate.
enum ConverseInputs {
    /// The user's speech (the part asked for, with the gain), and where in it the speech begins.
    struct User {
        var samples: [Float]
        /// The labelled onset: the first 10 ms frame within 40 dB of the loudest and above -60 dBFS (the test
        /// vectors' rule), in samples from the start of `samples`.
        var onsetSample: Int
    }

    static func user(_ options: ConverseOptions, rate: Int) throws -> User {
        var samples = try load(options.user, option: "--user", rate: rate)
        let from = Int(((options.userFrom ?? 0) * Double(rate)).rounded())
        let to = min(samples.count, options.userTo.map { Int(($0 * Double(rate)).rounded()) } ?? samples.count)
        guard from < to else {
            throw RunFailure(message: String(format: "--user %@ holds %.2f s: nothing from %.2f s", options.user,
                                             Double(samples.count) / Double(rate), options.userFrom ?? 0))
        }
        let gain = Float(pow(10, options.userGainDecibels / 20))
        samples = samples[from..<to].map { $0 * gain }
        let frame = rate / 100
        let levels = stride(from: 0, to: samples.count - frame + 1, by: frame).map { start -> Double in
            var sum = 0.0
            for value in samples[start..<start + frame] { sum += Double(value) * Double(value) }
            return 10 * log10(max(sum / Double(frame), 1e-20))
        }
        let loudest = levels.max() ?? -200
        guard loudest > -60, let first = levels.firstIndex(where: { $0 >= loudest - 40 && $0 > -60 }) else {
            throw RunFailure(message: "--user \(options.user): no speech above -60 dBFS in the part given")
        }
        return User(samples: samples, onsetSample: first * frame)
    }

    /// The room: the impulse response file (its first channel, resampled to `rate`) or the synthetic one.
    static func impulse(_ options: ConverseOptions, rate: Int) throws -> [Float] {
        guard let path = options.impulseResponse else {
            return ConverseRoom.syntheticImpulse(rate: rate, rt60: options.rt60, seed: options.seed)
        }
        let impulse = try load(path, option: "--impulse-response", rate: rate)
        guard impulse.count <= 2 * rate else {
            throw RunFailure(message: "--impulse-response \(path) lasts more than 2 s (an impulse response, not a recording?)")
        }
        guard impulse.contains(where: { $0 != 0 }) else { throw RunFailure(message: "--impulse-response \(path) is silent") }
        return impulse
    }

    /// The first channel of `path` at `rate`.
    private static func load(_ path: String, option: String, rate: Int) throws -> [Float] {
        let file: AudioFile
        do { file = try InputAudio.load(path) } catch let error as AudioFrontEndError {
            throw RunFailure(message: "\(option) \(path): \(error.message)")
        }
        guard file.frameCount > 0 else { throw RunFailure(message: "\(option) \(path) holds no audio") }
        let samples = try file.channel(0)
        guard file.sampleRate != rate else { return samples }
        return try SampleRateConverter(inputRate: file.sampleRate, outputRate: rate).resample(samples)
    }

    static func write(_ samples: [Int16], rate: Int, to path: String) throws {
        do { try AudioFile(int16: samples, sampleRate: rate).writeWAV(to: path) } catch let error as AudioFrontEndError {
            throw RunFailure(message: "--mic-output \(path): \(error.message)")
        }
    }
}
