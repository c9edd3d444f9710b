import AudioFrontEnd
import Foundation
import XCTest

/// Files whose headers lie: the loader allocates from what the file holds, not from what its header claims
/// (a 9.7 kB FLAC claiming 2^36 samples aborted `afe process` with a 256 GB allocation; a claim of 2^29 cost
/// 2.1 GB for 1 s of audio), and a file shorter than its header says is processed with one warning line.
final class HostileInputTests: XCTestCase {
    var work: AfeCommand!

    override func setUpWithError() throws { work = try AfeCommand() }
    override func tearDown() { work.remove() }

    /// Headroom over a clean run of the same audio: the 64 MiB any header claim may cost at most.
    static let claimAllowance = 64 << 20

    /// A FLAC of `seconds` of the near-end vector whose STREAMINFO total-samples field (36 bits at byte 18) says
    /// `claimedSamples`.
    func flac(_ name: String, claimedSamples: UInt64, seconds: Double = 1) throws -> String {
        try patchFLAC(try work.sox("nearend_16k.wav", name, effects: ["trim", "0", "\(seconds)"]), claimedSamples: claimedSamples)
    }

    /// Sets the STREAMINFO total-samples field of the FLAC at `path` to `claimedSamples` (0: unknown).
    func patchFLAC(_ path: String, claimedSamples: UInt64) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(Array(bytes[0..<4]), Array("fLaC".utf8))
        XCTAssertEqual(bytes[4] & 0x7f, 0, "the first metadata block is STREAMINFO")
        var field = bytes[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        field = field & ~((1 << 36) - 1) | (claimedSamples & ((1 << 36) - 1))
        for i in 0..<8 { bytes[18 + i] = UInt8(truncatingIfNeeded: field >> (56 - 8 * UInt64(i))) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A 16 kHz mono 16-bit WAV holding `samples` whose data chunk (and RIFF size) claims `claimedBytes`.
    func wav(_ name: String, samples: [Int16], claimedBytes: UInt32) throws -> String {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(v >> 8)] }
        var bytes = Array("RIFF".utf8) + le32(claimedBytes &+ 36) + Array("WAVEfmt ".utf8) + le32(16)
        bytes += le16(1) + le16(1) + le32(16000) + le32(32000) + le16(2) + le16(16)
        bytes += Array("data".utf8) + le32(claimedBytes)
        for s in samples { bytes += le16(UInt16(bitPattern: s)) }
        let path = work.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func nearEnd(seconds: Double) throws -> [Int16] {
        Array(try AudioFile(contentsOf: AfeCommand.vector("nearend_16k.wav")).int16Samples.prefix(Int(seconds * 16000)))
    }

    func testLyingHeadersCostNoMoreThanTheAudioTheyHold() throws {
        let clean = try work.afeMeasured(["process", "--mic", try flac("clean.flac", claimedSamples: 16000),
                                          "--output", work.path("clean-out.wav")])
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertEqual(clean.stderr, "", "a complete file gets no warning")
        let second = try nearEnd(seconds: 1)
        let cases: [(name: String, path: String, missing: Int)] = [
            ("FLAC claiming 2^36 - 1 samples", try flac("huge.flac", claimedSamples: (1 << 36) - 1), (1 << 36) - 1 - 16000),
            ("FLAC claiming 2^29 samples", try flac("big.flac", claimedSamples: 1 << 29), (1 << 29) - 16000),
            ("WAV whose data chunk claims 10 s", try wav("ten.wav", samples: second, claimedBytes: 320_000), 144_000),
            ("WAV whose data chunk claims 4 GiB", try wav("huge.wav", samples: second, claimedBytes: 0xFFFF_FFF0),
             (0xFFFF_FFF0 - 32000) / 2),
        ]
        for hostile in cases {
            let output = work.path("out.wav")
            let result = try work.afeMeasured(["process", "--mic", hostile.path, "--output", output])
            XCTAssertEqual(result.status, 0, "\(hostile.name): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(hostile.name): one warning line: \(result.stderr)")
            XCTAssertTrue(lines.first?.hasPrefix("afe: warning: \(hostile.path) is truncated") == true, "\(hostile.name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("announces \(hostile.missing) more frames"),
                          "\(hostile.name): says how much is missing: \(result.stderr)")
            XCTAssertLessThanOrEqual(result.peakBytes, clean.peakBytes + Self.claimAllowance,
                                     "\(hostile.name): peak RSS \(result.peakBytes >> 20) MiB, clean run \(clean.peakBytes >> 20) MiB")
            XCTAssertEqual(try AudioFile(contentsOf: output).frameCount, 16000, "\(hostile.name): the second it holds is processed")
        }
    }

    /// The loader's own accounting: a truncated WAV reads as what it holds, with the missing frames counted; a
    /// file longer than one read chunk is read whole, sample for sample.
    func testLoaderReadsWhatIsThereInBoundedChunks() throws {
        let second = try nearEnd(seconds: 1)
        let truncated = try AudioFile(contentsOf: try wav("t.wav", samples: second, claimedBytes: 96_000))
        XCTAssertEqual(truncated.int16Samples, second)
        XCTAssertEqual(truncated.missingFrames, 32000)
        let long = (0..<(AudioFile.readChunkSamples * 2 + 4321)).map { Int16(truncatingIfNeeded: $0 &* 40503) }
        let longPath = try wav("long.wav", samples: long, claimedBytes: UInt32(long.count * 2))
        let read = try AudioFile(contentsOf: longPath)
        XCTAssertEqual(read.missingFrames, 0)
        XCTAssertTrue(read.int16Samples == long, "an honest header: read in one go")
        // A FLAC that does not say its length (total samples 0): one frame, then three chunks, joined in order.
        let flacPath = work.path("long.flac")
        XCTAssertEqual(try AfeCommand.run("/usr/bin/sox", [longPath, flacPath], in: work.directory).status, 0)
        let unknown = try AudioFile(contentsOf: try patchFLAC(flacPath, claimedSamples: 0))
        XCTAssertEqual(unknown.missingFrames, 0)
        XCTAssertTrue(unknown.int16Samples == long, "read in chunks, sample for sample")
    }

    /// A float WAV holding samples that are not numbers (NaN, ±infinity) and samples beyond full scale: the loader
    /// reads the former as silence and counts both; `afe process` runs and says so in one warning line each.
    func testFloatSamplesThatAreNotNumbersAreReadAsSilenceAndCounted() throws {
        var samples = SampleConversion.float(from: try nearEnd(seconds: 1))
        let notNumbers = [Float.nan, .infinity, -.infinity, .signalingNaN]
        for index in 0..<100 { samples[1000 + 37 * index] = notNumbers[index % notNumbers.count] }
        for index in 0..<40 { samples[9000 + 11 * index] = index.isMultiple(of: 2) ? 1.5 : -3 }
        let path = work.path("float.wav")
        try AudioFile(samples: samples, sampleRate: 16000).writeWAV(to: path, encoding: .float32)

        let read = try AudioFile(contentsOf: path)
        XCTAssertEqual(read.nonFiniteSamples, 100)
        XCTAssertEqual(read.samplesBeyondFullScale, 40)
        XCTAssertTrue(read.samples.allSatisfy(\.isFinite))
        XCTAssertEqual(read.samples[1000], 0, "read as silence")
        XCTAssertEqual(read.samples[9000], 1.5, "kept as read; clipped when converted")
        XCTAssertEqual(try AudioFile(contentsOf: AfeCommand.vector("nearend_16k.wav")).nonFiniteSamples, 0)

        let output = work.path("float-out.wav")
        let result = try work.afeMeasured(["process", "--mic", path, "--output", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n"), [
            "afe: warning: \(path) holds 100 samples that are not numbers (NaN or infinite); processing them as silence",
            "afe: warning: \(path) holds 40 samples beyond full scale (float magnitude above 1); clipping them",
        ])
        let processed = try AudioFile(contentsOf: output)
        XCTAssertEqual(processed.frameCount, 16000)
        XCTAssertEqual(processed.nonFiniteSamples, 0)
    }

    /// Two outputs naming one file (or an output naming an input), however spelled, are refused before any work:
    /// one `afe:` line naming both options, exit 1, nothing written (`--opus` used to replace the WAV silently).
    func testOutputsNamingTheSameFileAreRefused() throws {
        let mic = try work.sox("nearend_16k.wav", "mic.wav", effects: ["trim", "0", "1"])
        let micBytes = try Data(contentsOf: URL(fileURLWithPath: mic))
        try FileManager.default.createDirectory(atPath: work.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: work.path("link"), withDestinationPath: work.directory.path)
        FileManager.default.createFile(atPath: work.path("target.wav"), contents: Data())
        try FileManager.default.createSymbolicLink(atPath: work.path("alias.wav"), withDestinationPath: work.path("target.wav"))
        let base = ["process", "--mic", mic]
        let cases: [([String], [String])] = [
            (["--output", "out.wav", "--opus", "out.wav"], ["--opus", "--output"]),
            (["--output", "./out.wav", "--report", "out.wav"], ["--report", "--output"]),
            (["--output", "sub/../out.wav", "--vad-labels", work.path("out.wav")], ["--vad-labels", "--output"]),
            (["--output", "out.wav", "--opus", "link/out.wav"], ["--opus", "link/out.wav"]),
            (["--output", "alias.wav", "--report", "target.wav"], ["--report", "target.wav", "alias.wav"]),
            (["--output", "mic.wav"], ["--output", "--mic"]),
            (["--output", "out.wav", "--reference", "./out.wav"], ["--output", "--reference"]),
        ]
        for (arguments, fragments) in cases {
            let result = try work.afe(base + arguments)
            let label = arguments.joined(separator: " ")
            XCTAssertEqual(result.status, 1, "\(label): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", label)
            XCTAssertTrue(result.stderr.hasPrefix("afe: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("names the same file"), "\(label): \(result.stderr)")
            for fragment in fragments { XCTAssertTrue(result.stderr.contains(fragment), "\(label): names \(fragment): \(result.stderr)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: work.path("out.wav")), "\(label): nothing written")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: mic)), micBytes, "the input untouched")
        let distinct = try work.afe(base + ["--output", "out.wav", "--opus", "out.opus", "--report", "sub/out.wav"])
        XCTAssertEqual(distinct.status, 0, "different files are fine: \(distinct.stderr)")
        // One-character names (Foundation's deletingLastPathComponent trapped on "y": SIGILL, exit 132).
        let short = try work.afe(["process", "--mic", "x", "--output", "y"])
        XCTAssertEqual(short.status, 1, "a missing one-letter input: \(short.stderr)")
        XCTAssertTrue(short.stderr.hasPrefix("afe: "), short.stderr)
        let shortOK = try work.afe(base + ["--output", "y", "--opus", "z"])
        XCTAssertEqual(shortOK.status, 0, "one-letter outputs: \(shortOK.stderr)")
    }

    /// Every numeric option at the ends of Int and past them: one `afe:` line, never a trap (`--channel
    /// -9223372036854775808` overflowed in `value - 1` before its range check, in process and stream).
    func testNumericOptionsAtTheExtremesNeverTrap() throws {
        let mic = try work.sox("nearend_16k.wav", "mic.wav", effects: ["trim", "0", "1"])
        let reference = try work.sox("farend_16k.wav", "ref.wav", effects: ["trim", "0", "1"])
        let process = ["process", "--mic", mic, "--reference", reference, "--output", work.path("out.wav")]
        let stream = ["stream", "--mic", mic, "--url", "ws://127.0.0.1:9/api-ws/v1/inference"]
        let options: [([String], String)] = [(process, "--channel"), (process, "--rate"), (process, "--output-rate"),
                                             (process, "--delay-ms"), (stream, "--channel"), (stream, "--max-sentence-silence")]
        for (command, option) in options {
            for value in ["-9223372036854775808", "9223372036854775807", "-1", "0", "18446744073709551616", "1e3"]
                where !(option == "--delay-ms" && value == "0") { // 0 ms is a valid fixed delay
                let result = try work.afe(command + [option, value])
                let label = "afe \(command[0]) \(option) \(value)"
                XCTAssertTrue(result.status == 1 || result.status == 2, "\(label): exit \(result.status): \(result.stderr.prefix(300))")
                XCTAssertTrue(result.stderr.hasPrefix("afe: ") && result.stderr.filter { $0 == "\n" }.count == 1,
                              "\(label): \(result.stderr.prefix(300))")
            }
        }
    }

    /// A key, URL or model with CR/LF would inject HTTP headers into the WebSocket upgrade: refused before any
    /// connection, one `afe:` line, exit 1 (or 2 for a URL that does not parse), the key never printed.
    func testControlCharactersInTheKeyURLOrModelAreRefused() throws {
        let mic = try work.sox("nearend_16k.wav", "mic.wav", effects: ["trim", "0", "1"])
        let url = "ws://127.0.0.1:9/api-ws/v1/inference"
        let cases: [([String], [String: String])] = [
            (["--url", "ws://k@x.example/api-ws/v1/inference"], ["DASHSCOPE_API_KEY": "sk-evil\r\nX-Injected: 1"]),
            (["--url", url + "?a=1%0D%0AX-Injected:%201"], [:]),
            (["--url", url, "--model", "fun\r\nX-Injected: 1"], [:]),
            (["--url", "ws://127.0.0.1:9/ws/v1", "--protocol", "nls", "--app-key", "app\nkey"], [:]),
        ]
        for (arguments, environment) in cases {
            let result = try work.afe(["stream", "--mic", mic] + arguments, environment: environment)
            let label = "\(arguments) \(environment)"
            XCTAssertTrue(result.status == 1 || result.status == 2, "\(label): exit \(result.status) \(result.stdout) \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("afe: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(label): \(result.stderr)")
            XCTAssertFalse(result.stdout.contains("started (task"), "\(label): no task started")
            XCTAssertFalse((result.stdout + result.stderr).contains("sk-evil"), "\(label): the key is not printed")
        }
    }
}
