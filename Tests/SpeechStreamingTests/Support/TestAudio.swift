import AudioFrontEnd
import Foundation
import SpeechStreaming
import XCTest

/// Synthetic test audio: 1 kHz tone bursts (−23 dBFS) at 10 ms boundaries in silence, as 16-bit PCM or
/// Ogg Opus pages.
enum TestAudio {
    /// Burst intervals in seconds; with max_sentence_silence 400 ms each burst is one sentence.
    static let bursts: [(start: Double, end: Double)] = [(0.3, 1.2), (1.9, 2.5), (3.2, 4.4)]
    static let seconds = 5.2

    static func samples(rate: Int = 16000, bursts: [(start: Double, end: Double)] = bursts,
                        seconds: Double = seconds) -> [Int16] {
        var samples = [Int16](repeating: 0, count: Int(seconds * Double(rate)))
        for burst in bursts {
            for i in Int(burst.start * Double(rate))..<Int(burst.end * Double(rate)) {
                samples[i] = Int16(0.07 * 32767 * sin(2 * Double.pi * 1000 * Double(i) / Double(rate)))
            }
        }
        return samples
    }

    static func pcm(rate: Int = 16000, bursts: [(start: Double, end: Double)] = bursts,
                    seconds: Double = seconds) -> [UInt8] {
        samples(rate: rate, bursts: bursts, seconds: seconds).withUnsafeBytes { Array($0) }
    }

    /// The samples encoded by the package's own Opus encoder (20 ms packets, as the pipeline streams them), one
    /// element per packet: what an Opus session's `send(audio:)` takes (the session muxes the Ogg stream).
    static func opusPackets(_ samples: [Int16], rate: Int = 16000) throws -> [[UInt8]] {
        var configuration = Opus.Encoder.Configuration()
        configuration.sampleRate = rate
        let encoder = try Opus.Encoder(configuration: configuration)
        var packets: [[UInt8]] = []
        try encoder.encodeAll(samples) { packet, _ in packets.append(Array(packet)) }
        return packets
    }

    /// Streams `bytes` in `chunk`-byte pieces (or `pieces` as given), retrying while the queue is full.
    static func stream(_ session: SpeechStreamingSession, pieces: [[UInt8]], pause: TimeInterval = 0,
                       file: StaticString = #filePath, line: UInt = #line) {
        for piece in pieces {
            var result = AudioSendResult.queueFull
            var tries = 0
            while result == .queueFull && tries < 500 {
                result = piece.withUnsafeBytes { session.send(audio: $0) }
                if result == .queueFull { usleep(10_000) }
                tries += 1
            }
            XCTAssertEqual(result, .accepted, "send(audio:) of \(piece.count) bytes", file: file, line: line)
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
    }

    static func chunks(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "TestAudio", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments) failed"])
        }
        return process.terminationStatus
    }
}
