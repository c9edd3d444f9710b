import AudioFrontEnd
import Foundation

/// Round-trip quality of a speech codec, measured where a waveform comparison means something.
///
/// Opus in VOIP mode high-passes its input on purpose (a cutoff that follows the talker's pitch, near
/// 100 Hz), so comparing full-band waveforms mostly measures that filter: at 64 kb/s the correlation
/// stops near 0.87. Both signals therefore go through the same zero-phase 300 Hz high-pass first; above
/// it, the correlation keeps rising with the bitrate (0.66 at 6 kb/s, 0.95 at 24 kb/s, 0.98 at 64 kb/s on
/// nearend_16k.wav) and falls below 0.7 when the decoded signal is one sample out of alignment.
enum SpeechQuality {
    struct Result: CustomStringConvertible {
        var correlation: Double
        var segmentalSNR: Double
        var description: String { String(format: "correlation %.3f, segmental SNR %.2f dB", correlation, segmentalSNR) }
    }

    /// Compares `reference` with `decoded[delay ..< delay + reference.count]` above 300 Hz.
    static func measure(reference: [Int16], decoded: [Int16], delay: Int, sampleRate: Int) -> Result {
        let end = min(decoded.count, delay + reference.count)
        let ref = highPass(SampleConversion.float(from: Array(reference[0..<(end - delay)])), sampleRate: sampleRate)
        let test = highPass(SampleConversion.float(from: Array(decoded[delay..<end])), sampleRate: sampleRate)
        return Result(correlation: SignalMetrics.correlation(ref, test),
                      segmentalSNR: SignalMetrics.segmentalSNR(reference: ref, test: test, segment: sampleRate / 50))
    }

    /// A second-order Butterworth high-pass at 300 Hz, run forwards then backwards (zero phase).
    static func highPass(_ x: [Float], sampleRate: Int, cutoff: Double = 300) -> [Float] {
        let w0 = 2 * Double.pi * cutoff / Double(sampleRate), alpha = sin(w0) / 2.0.squareRoot(), c = cos(w0)
        let a0 = 1 + alpha
        let b = [(1 + c) / 2 / a0, -(1 + c) / a0, (1 + c) / 2 / a0], a = [-2 * c / a0, (1 - alpha) / a0]
        func pass(_ s: [Float]) -> [Float] {
            var y = [Float](repeating: 0, count: s.count)
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for i in s.indices {
                let x0 = Double(s[i])
                let y0 = b[0] * x0 + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
                x2 = x1; x1 = x0; y2 = y1; y1 = y0
                y[i] = Float(y0)
            }
            return y
        }
        return Array(pass(Array(pass(x).reversed())).reversed())
    }
}

/// Runs a command-line tool found on PATH, for the checks against independent implementations (opus-tools).
enum ExternalTool {
    /// The tool's path, or nil when it is not installed.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool` with `arguments`; returns its exit status and its standard output and error together.
    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A fresh path in the temporary directory.
    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("afe-\(UUID().uuidString)-\(name)").path
    }
}
