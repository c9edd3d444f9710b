import AudioFrontEnd
import Foundation
import XCTest

/// What `afe process` writes besides the WAV: VAD labels, the JSON report, the Ogg Opus file; and the progress
/// bar, which appears on a terminal only.
final class ProcessOutputTests: XCTestCase {
    var work: AfeCommand!

    override func setUpWithError() throws { work = try AfeCommand() }
    override func tearDown() { work.remove() }

    /// Runs the 0 dB double-talk vector (21 s) with every output.
    func runFull(_ extra: [String] = []) throws -> AfeCommand.Result {
        try work.afe(["process", "--mic", AfeCommand.vector("doubletalk_ser0db_16k.wav"),
                      "--reference", AfeCommand.vector("farend_16k.wav"), "--output", work.path("out.wav"),
                      "--opus", work.path("out.opus"), "--vad-labels", work.path("vad.csv"),
                      "--report", work.path("report.json")] + extra)
    }

    func testVADLabelsHaveOneLinePerOutputFrameAndFollowTheNearEnd() throws {
        for rate in [16000, 48000] {
            let result = try runFull(["--output-rate", "\(rate)"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let output = try AudioFile(contentsOf: work.path("out.wav"))
            let lines = try String(contentsOfFile: work.path("vad.csv"), encoding: .utf8).split(separator: "\n")
            XCTAssertEqual(lines.count, (output.frameCount + rate / 100 - 1) / (rate / 100), "one line per 10 ms at \(rate) Hz")
            XCTAssertEqual(lines.count, 2100)
            var labels: [Bool] = []
            for (index, line) in lines.enumerated() {
                let fields = line.split(separator: ",")
                XCTAssertEqual(fields.count, 2, "line \(index): \(line)")
                XCTAssertEqual(Int(fields[0]), index, "line \(index)")
                XCTAssertTrue(fields[1] == "0" || fields[1] == "1", "line \(index): \(line)")
                labels.append(fields[1] == "1")
            }
            // Ground truth: the near end talks at these times (manifest); the echo of the far end must not count.
            let speech = [(3.03, 4.83), (6.22, 8.51), (12.32, 15.05), (17.22, 19.8)]
            let truth = (0..<labels.count).map { f in speech.contains { Double(f) / 100 >= $0.0 && Double(f) / 100 < $0.1 } }
            let hits = zip(labels, truth).filter { $0 && $1 }.count
            let precision = Double(hits) / Double(max(1, labels.filter { $0 }.count))
            let recall = Double(hits) / Double(truth.filter { $0 }.count)
            XCTAssertGreaterThan(precision, 0.7, "speech labels on the near end's speech at \(rate) Hz")
            XCTAssertGreaterThan(recall, 0.8, "the near end's speech labelled at \(rate) Hz")
        }
    }

    func testReportHasEveryField() throws {
        let result = try runFull()
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work.path("report.json"))))
                                   as? [String: Any])
        let mic = try XCTUnwrap(report["mic"] as? [String: Any])
        XCTAssertEqual(mic["duration_s"] as? Double, 21)
        XCTAssertEqual(mic["sample_rate"] as? Int, 16000)
        let reference = try XCTUnwrap(report["reference"] as? [String: Any])
        XCTAssertEqual(reference["path"] as? String, AfeCommand.vector("farend_16k.wav"))
        XCTAssertEqual(reference["duration_s"] as? Double, 21)
        XCTAssertEqual(reference["sample_rate"] as? Int, 16000)
        let output = try XCTUnwrap(report["output"] as? [String: Any])
        XCTAssertEqual(output["samples"] as? Int, try AudioFile(contentsOf: work.path("out.wav")).frameCount)
        XCTAssertEqual(output["offset_samples"] as? Int, 0, "no added offset")
        XCTAssertEqual(output["duration_s"] as? Double, 21)
        let delays = try XCTUnwrap(report["delay_estimate_ms"] as? [[String: Any]])
        XCTAssertGreaterThan(delays.count, 20, "the delay estimate over time")
        let times = delays.compactMap { $0["t_ms"] as? Int }
        XCTAssertEqual(times, times.sorted())
        let found = delays.compactMap { $0["delay_ms"] as? Double }
        XCTAssertEqual(found.last ?? 0, 120, accuracy: 5, "the vector's 120 ms echo delay")
        let echo = try XCTUnwrap(report["echo"] as? [String: Any])
        XCTAssertGreaterThan(echo["median_erle_db"] as? Double ?? 0, 15)
        XCTAssertFalse((echo["erle_db"] as? [[String: Any]] ?? []).isEmpty)
        let segments = try XCTUnwrap(report["vad_segments"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(segments.count, 3)
        XCTAssertTrue(segments.allSatisfy { $0["start_ms"] is Int && $0["end_ms"] is Int })
        let drops = try XCTUnwrap(report["drops"] as? [String: Int])
        XCTAssertEqual(drops, ["mic_refused_bytes": 0, "reference_dropped_samples": 0, "reference_missing_samples": 0,
                               "reference_refused_bytes": 0])
        XCTAssertGreaterThan(report["frames_processed"] as? Int ?? 0, 2000)
        let processing = try XCTUnwrap(report["processing"] as? [String: Double])
        for key in ["cpu_s", "wall_s", "real_time_factor"] { XCTAssertGreaterThan(processing[key] ?? 0, 0, key) }
        XCTAssertEqual(processing["real_time_factor"] ?? 0, (processing["cpu_s"] ?? 0) / 21, accuracy: 1e-6)
        XCTAssertTrue(result.stdout.contains("echo delay found: 119") || result.stdout.contains("echo delay found: 120"), result.stdout)
    }

    /// opus-tools read the Ogg Opus file and find the mic's duration in it.
    func testOpusFileIsReadByOpusToolsWithTheRightDuration() throws {
        let result = try runFull()
        XCTAssertEqual(result.status, 0, result.stderr)
        let info = try AfeCommand.run("/usr/bin/opusinfo", [work.path("out.opus")], in: work.directory)
        XCTAssertEqual(info.status, 0, info.stdout + info.stderr)
        let length = try XCTUnwrap(info.stdout.split(separator: "\n").first { $0.contains("Playback length") }, info.stdout)
        XCTAssertTrue(length.contains("0m:21.0"), "opusinfo: \(length)")
        let decoded = try AfeCommand.run("/usr/bin/opusdec", ["--quiet", work.path("out.opus"), work.path("decoded.wav")],
                                         in: work.directory)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let audio = try AudioFile(contentsOf: work.path("decoded.wav"))
        XCTAssertEqual(Double(audio.frameCount) / Double(audio.sampleRate), 21, accuracy: 0.02, "decoded duration")
    }

    /// No progress bar when stderr is piped; on a terminal (a pseudo-terminal from `script`) there is one.
    func testProgressBarOnlyOnATerminal() throws {
        let piped = try runFull()
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stderr, "", "piped: nothing extra")
        XCTAssertFalse(piped.stdout.contains("%"), "no progress in the summary")
        let command = ([AfeCommand.binary, "process", "--mic", AfeCommand.vector("doubletalk_ser0db_16k.wav"),
                        "--output", work.path("tty.wav")]).map { "'\($0)'" }.joined(separator: " ")
        let terminal = try AfeCommand.run("/usr/bin/script", ["-qec", command, "/dev/null"], in: work.directory)
        XCTAssertEqual(terminal.status, 0, terminal.stdout)
        XCTAssertTrue(terminal.stdout.contains("100%") && terminal.stdout.contains("[#"), "progress bar on a terminal: \(terminal.stdout)")
    }
}
