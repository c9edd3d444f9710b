import AudioFrontEnd
import AudioPlayback
import Foundation
import XCTest

/// Test inputs made by real encoders at test time (Scripts/install-dependencies.sh installs them): espeak-ng
/// speaks a sentence, sox converts it, lame encodes mp3, opusenc encodes Ogg Opus. Made once per process into a
/// temporary folder.
enum EncodedInputs {
    static let sentence = "The quick brown fox jumps over the lazy dog, and then the weather turns cold and grey."

    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("afe-playback-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Runs a tool; throws with its stderr when it fails.
    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AudioFrontEndError(.fileError, "\(tool) \(arguments.joined(separator: " ")) failed: "
                                         + String(decoding: message, as: UTF8.self))
        }
    }

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// espeak-ng's sentence, 22050 Hz mono 16-bit WAV (its native rate).
    static let speechWAV: String = {
        let file = path("speech.wav")
        try? run("espeak-ng", ["-v", "en-us", "-s", "160", "-w", file, sentence])
        return file
    }()

    /// The source samples of a file made by `make` (mono int16), read through libsndfile.
    static func samples(_ file: String) throws -> (samples: [Int16], sampleRate: Int) {
        let audio = try AudioFile(contentsOf: file)
        return (audio.int16Samples, audio.sampleRate)
    }

    /// The speech at `rate` Hz as a WAV file (sox), `channels` channels (the same signal in each).
    static func speech(rate: Int, channels: Int = 1) throws -> String {
        let file = path("speech-\(rate)-\(channels).wav")
        if !FileManager.default.fileExists(atPath: file) {
            try run("sox", [speechWAV, "-b", "16", "-e", "signed-integer", "-r", "\(rate)", "-c", "\(channels)", file])
        }
        return file
    }

    /// Encodes `wav` with `tool` and returns the output file's bytes.
    static func encoded(_ wav: String, _ ext: String, _ tool: String, _ arguments: [String]) throws -> [UInt8] {
        let file = path((wav as NSString).lastPathComponent + "." + arguments.joined().filter { $0.isLetter || $0.isNumber } + "." + ext)
        if !FileManager.default.fileExists(atPath: file) { try run(tool, arguments + [wav, file]) }
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
    }

    static func bytes(_ file: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) }

    static func mp3(_ wav: String, kbps: Int = 64) throws -> [UInt8] {
        try encoded(wav, "mp3", "lame", ["--quiet", "-m", "m", "-b", "\(kbps)"])
    }

    static func opus(_ wav: String, kbps: Int = 32) throws -> [UInt8] {
        try encoded(wav, "opus", "opusenc", ["--quiet", "--bitrate", "\(kbps)"])
    }
}

/// Feeding a decoder the way the network does.
enum Feed {
    /// Decodes `bytes` in pieces whose sizes come from `splits` (cycled); returns the samples and what was thrown.
    static func decode(_ decoder: PlaybackDecoder, _ bytes: [UInt8], splits: [Int]) -> (samples: [Int16], error: PlaybackDecodeError?) {
        var out: [Int16] = []
        var offset = 0
        var index = 0
        var thrown: PlaybackDecodeError?
        bytes.withUnsafeBytes { all in
            do throws(PlaybackDecodeError) {
                while offset < all.count {
                    let n = min(max(1, splits[index % splits.count]), all.count - offset)
                    index += 1
                    try decoder.decode(UnsafeRawBufferPointer(rebasing: all[offset..<(offset + n)])) { out += $0 }
                    offset += n
                }
                try decoder.finish { out += $0 }
            } catch {
                thrown = error
            }
        }
        return (out, thrown)
    }

    /// Random piece sizes 1...maximum from a seeded generator.
    static func randomSplits(seed: UInt64, maximum: Int, count: Int = 257) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 1 + Int((state >> 33) % UInt64(maximum))
        }
    }

    /// The Ogg pages of `bytes`, each as its own array (what the TTS server sends, one per binary frame).
    static func oggPages(_ bytes: [UInt8]) -> [[UInt8]] {
        var pages: [[UInt8]] = []
        var offset = 0
        while offset + 27 <= bytes.count {
            let segments = Int(bytes[offset + 26])
            guard offset + 27 + segments <= bytes.count else { break }
            let body = (0..<segments).reduce(0) { $0 + Int(bytes[offset + 27 + $1]) }
            let end = offset + 27 + segments + body
            pages.append(Array(bytes[offset..<min(end, bytes.count)]))
            offset = end
        }
        return pages
    }
}

/// Quality measures for lossy round trips.
enum Quality {
    /// The lag (decoded index − source index) within ±`range` that maximizes the correlation, and that correlation.
    static func align(_ source: [Int16], _ decoded: [Int16], range: Int = 200) -> (lag: Int, correlation: Double) {
        var best = (lag: 0, correlation: -2.0)
        let n = min(source.count, decoded.count)
        for lag in -range...range {
            var sxy = 0.0, sxx = 0.0, syy = 0.0
            source.withUnsafeBufferPointer { s in
                decoded.withUnsafeBufferPointer { d in
                    for i in max(0, -lag)..<min(n, n - lag) {
                        let x = Double(s[i]), y = Double(d[i + lag])
                        sxy += x * y; sxx += x * x; syy += y * y
                    }
                }
            }
            let c = sxy / max(1e-9, (sxx * syy).squareRoot())
            if c > best.correlation { best = (lag, c) }
        }
        return best
    }

    /// SNR in dB of `decoded` against `source` after shifting by `lag`, with the best least-squares gain.
    static func snr(_ source: [Int16], _ decoded: [Int16], lag: Int) -> Double {
        let n = min(source.count, decoded.count)
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for i in max(0, -lag)..<min(n, n - lag) {
            let x = Double(source[i]), y = Double(decoded[i + lag])
            sxy += x * y; sxx += x * x; syy += y * y
        }
        let gain = sxy / max(1e-9, syy)
        var noise = 0.0
        for i in max(0, -lag)..<min(n, n - lag) {
            let e = Double(source[i]) - gain * Double(decoded[i + lag])
            noise += e * e
        }
        return 10 * log10(sxx / max(1e-9, noise))
    }
}
