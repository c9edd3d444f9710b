import AudioFrontEnd
import Foundation
import XCTest

/// `afe process` run as a user runs it: every input format libsndfile reads, different rates and lengths,
/// channel selection, output length and alignment, VAD labels, the JSON report, the Opus file (checked with
/// opus-tools), and the progress bar only on a terminal.
final class ProcessCommandTests: XCTestCase {
    var work: AfeCommand!

    override func setUpWithError() throws { work = try AfeCommand() }
    override func tearDown() { work.remove() }

    /// The first 9 s of the 0 dB double-talk vector (echo of the far end at 120 ms) and of the far end.
    static let trim = ["trim", "0", "9"]

    func report(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The last delay estimate in a report, ms.
    func finalDelay(_ report: [String: Any]) -> Double? {
        (report["delay_estimate_ms"] as? [[String: Any]])?.compactMap { $0["delay_ms"] as? Double }.last
    }

    func testEveryInputFormatAndRate() throws {
        let reference = try work.sox("farend_16k.wav", "reference.flac", options: ["-r", "48000"], effects: Self.trim)
        let inputs: [(name: String, options: [String], rate: Int)] = [
            ("mic.wav", [], 16000),
            ("mic24.wav", ["-r", "44100", "-b", "24"], 44100),
            ("micfloat.wav", ["-r", "48000", "-e", "floating-point", "-b", "32"], 48000),
            ("mic.flac", ["-r", "32000"], 32000),
            ("mic.ogg", [], 16000),
            ("mic.aiff", ["-r", "22050"], 22050),
        ]
        for input in inputs {
            let mic = try work.sox("doubletalk_ser0db_16k.wav", input.name, options: input.options, effects: Self.trim)
            let result = try work.afe(["process", "--mic", mic, "--reference", reference, "--output", work.path("out.wav"),
                                       "--report", work.path("report.json")])
            XCTAssertEqual(result.status, 0, "\(input.name): \(result.stderr)")
            XCTAssertEqual(result.stderr, "", "\(input.name): nothing on stderr when piped (no progress bar)")
            let source = try AudioFile(contentsOf: mic)
            XCTAssertEqual(source.sampleRate, input.rate, input.name)
            let output = try AudioFile(contentsOf: work.path("out.wav"))
            XCTAssertEqual(output.sampleRate, 16000, input.name)
            XCTAssertEqual(output.frameCount, source.frameCount * 16000 / input.rate, "\(input.name): mic length × rate ratio")
            let report = try report(work.path("report.json"))
            let delay = try XCTUnwrap(finalDelay(report), input.name)
            XCTAssertEqual(delay, 120, accuracy: 8, "\(input.name): the vector's echo delay")
            let erle = try XCTUnwrap((report["echo"] as? [String: Any])?["median_erle_db"] as? Double, input.name)
            XCTAssertGreaterThan(erle, 15, "\(input.name): echo removed")
        }
    }

    /// The reference shorter than the mic and at another rate; then longer. The output follows the mic; the
    /// reference the mic outlives is counted as missing in the report, not hidden.
    func testInputsOfDifferentRatesAndLengths() throws {
        let mic = try work.sox("doubletalk_ser0db_16k.wav", "mic.wav", options: ["-r", "48000"], effects: Self.trim)
        for (name, seconds) in [("short.wav", "6"), ("long.wav", "12")] {
            let reference = try work.sox("farend_16k.wav", name, options: ["-r", "24000"], effects: ["trim", "0", seconds])
            let result = try work.afe(["process", "--mic", mic, "--reference", reference, "--output", work.path("out.wav"),
                                       "--output-rate", "8000", "--report", work.path("report.json")])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let output = try AudioFile(contentsOf: work.path("out.wav"))
            XCTAssertEqual(output.sampleRate, 8000)
            XCTAssertEqual(output.frameCount, 9 * 8000, "\(name): 9 s of mic at 48 kHz → 9 s at 8 kHz")
            let report = try report(work.path("report.json"))
            XCTAssertEqual(finalDelay(report) ?? 0, 120, accuracy: 8, name)
            let missing = try XCTUnwrap((report["drops"] as? [String: Any])?["reference_missing_samples"] as? Int)
            if name == "short.wav" {
                XCTAssertGreaterThan(missing, 2 * 16000, "3 s without reference at the processing rate")
            } else {
                XCTAssertEqual(missing, 0)
            }
        }
    }

    /// With echo cancellation and noise suppression off the output is the mic, converted: it matches the same
    /// mic converted by sox at lag 0 (no added offset), for rate changes on the way in, inside and out.
    func testOutputIsAlignedSampleForSampleWithTheMic() throws {
        let cases: [(micRate: Int, processing: Int, output: Int)] = [(16000, 16000, 16000), (44100, 48000, 16000),
                                                                     (48000, 16000, 8000), (16000, 48000, 48000)]
        for c in cases {
            let label = "mic \(c.micRate) → \(c.processing) → \(c.output)"
            let mic = try work.sox("nearend_16k.wav", "mic\(c.micRate).wav", options: ["-r", "\(c.micRate)"], effects: ["trim", "2", "5"])
            let expected = try AudioFile(contentsOf: work.sox("nearend_16k.wav", "expected\(c.output).wav",
                                                              options: ["-r", "\(c.output)"], effects: ["trim", "2", "5"]))
            let result = try work.afe(["process", "--mic", mic, "--output", work.path("out.wav"), "--aec", "off", "--ns", "off",
                                       "--rate", "\(c.processing)", "--output-rate", "\(c.output)"])
            XCTAssertEqual(result.status, 0, "\(label): \(result.stderr)")
            let output = try AudioFile(contentsOf: work.path("out.wav"))
            XCTAssertEqual(output.frameCount, 5 * c.output, "\(label): length")
            let (lag, correlation) = AfeCommand.bestLag(expected.samples, output.samples, maximumLag: c.output / 250)
            XCTAssertEqual(lag, 0, "\(label): output offset in samples")
            XCTAssertGreaterThan(correlation, 0.99, label)
        }
    }

    /// A stereo mic whose first channel is silent and second carries speech: the first by default, the second
    /// with --channel 2, and --channel 3 is a one-line error.
    func testChannelSelection() throws {
        let speech = try work.sox("nearend_16k.wav", "speech.wav", effects: ["trim", "2", "5"])
        let stereo = work.path("stereo.wav")
        let made = try AfeCommand.run("/usr/bin/sox", ["-M", "-v", "0", speech, speech, stereo], in: work.directory)
        XCTAssertEqual(made.status, 0, made.stderr)
        func run(_ extra: [String]) throws -> (AfeCommand.Result, [Float]) {
            let result = try work.afe(["process", "--mic", stereo, "--output", work.path("out.wav"), "--aec", "off"] + extra)
            let samples = result.status == 0 ? try AudioFile(contentsOf: work.path("out.wav")).samples : []
            return (result, samples)
        }
        let (first, silent) = try run([])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(silent.map(abs).max() ?? 1, 0, "channel 1 is silent")
        let (second, voiced) = try run(["--channel", "2"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let expected = try AudioFile(contentsOf: speech).samples
        XCTAssertEqual(voiced.count, expected.count)
        XCTAssertGreaterThan(AfeCommand.bestLag(expected, voiced, maximumLag: 8).correlation, 0.99, "channel 2 is the speech")
        let (third, _) = try run(["--channel", "3"])
        XCTAssertNotEqual(third.status, 0)
        XCTAssertEqual(third.stderr, "afe: --channel 3: \(stereo) has 2 channel(s)\n")
    }

    /// A stereo reference whose first channel is silent and whose second carries what was played: the reference
    /// is the channels' mix, so the echo is removed (with the first channel alone nothing would be).
    func testAStereoReferenceIsMixed() throws {
        let played = try work.sox("farend_16k.wav", "played.wav", effects: Self.trim)
        let reference = work.path("stereo-reference.wav")
        let made = try AfeCommand.run("/usr/bin/sox", ["-M", "-v", "0", played, played, reference], in: work.directory)
        XCTAssertEqual(made.status, 0, made.stderr)
        let mic = try work.sox("echo_d120ms_16k.wav", "echo.wav", effects: Self.trim)
        let result = try work.afe(["process", "--mic", mic, "--reference", reference, "--output", work.path("out.wav"),
                                   "--report", work.path("report.json")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try report(work.path("report.json"))
        XCTAssertEqual(finalDelay(report) ?? 0, 120, accuracy: 8, "the delay found on the mixed reference")
        let erle = try XCTUnwrap((report["echo"] as? [String: Any])?["median_erle_db"] as? Double)
        XCTAssertGreaterThan(erle, 15, "echo removed")
    }
}
