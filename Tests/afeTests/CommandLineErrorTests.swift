import Foundation
import XCTest

/// Every failure prints one line naming the problem on stderr, nothing on stdout, and exits non-zero;
/// `--help` prints the usage on stdout and exits 0, for the tool and for each subcommand.
final class CommandLineErrorTests: XCTestCase {
    var work: AfeCommand!

    override func setUpWithError() throws { work = try AfeCommand() }
    override func tearDown() { work.remove() }

    func expectOneLineError(_ arguments: [String], naming fragments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try work.afe(arguments)
        let label = "afe \(arguments.joined(separator: " "))"
        XCTAssertNotEqual(result.status, 0, label, file: file, line: line)
        XCTAssertEqual(result.stdout, "", "\(label): stdout", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("afe: ") && result.stderr.hasSuffix("\n"), "\(label): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, "\(label): one line: \(result.stderr)", file: file, line: line)
        for fragment in fragments {
            XCTAssertTrue(result.stderr.contains(fragment), "\(label): '\(result.stderr)' names \(fragment)", file: file, line: line)
        }
    }

    func testEveryErrorIsOneLineNamingTheProblem() throws {
        let mic = try work.sox("nearend_16k.wav", "mic.wav", effects: ["trim", "0", "1"])
        let output = work.path("out.wav")
        let text = work.path("notes.wav")
        try "not audio at all\n".write(toFile: text, atomically: true, encoding: .utf8)
        let odd = try work.sox("nearend_16k.wav", "mic11025.wav", options: ["-r", "11025"], effects: ["trim", "0", "1"])
        let fast = try work.sox("farend_16k.wav", "ref96k.wav", options: ["-r", "96000"], effects: ["trim", "0", "1"])
        let empty = work.path("empty.wav")
        XCTAssertEqual(try AfeCommand.run("/usr/bin/sox", ["-n", "-r", "16000", "-b", "16", "-c", "1", empty, "trim", "0", "0"],
                                          in: work.directory).status, 0)
        let base = ["process", "--mic", mic, "--output", output]
        let cases: [([String], [String])] = [
            (["process", "--mic", work.path("missing.wav"), "--output", output], ["missing.wav", "No such file"]),
            (["process", "--mic", text, "--output", output], ["notes.wav", "cannot read"]),
            (["process", "--mic", work.directory.path, "--output", output], [work.directory.path]),
            (["process", "--mic", empty, "--output", output], ["empty.wav", "no audio"]),
            (["process", "--mic", odd, "--output", output], ["mic sample rate", "11025"]),
            (base + ["--reference", fast], ["reference sample rate", "96000"]),
            (base + ["--reference", work.path("nope.wav")], ["nope.wav"]),
            (base + ["--rate", "44100"], ["processing rate", "44100"]),
            (base + ["--output-rate", "7"], ["output sample rate", "7"]),
            (base + ["--aec", "fancy"], ["--aec", "fancy"]),
            (base + ["--suppression", "max"], ["--suppression", "max"]),
            (base + ["--ns", "loud"], ["--ns", "loud"]),
            (base + ["--delay-ms", "soon"], ["--delay-ms", "soon"]),
            (base + ["--delay-ms", "-5"], ["delay", "-5"]),
            (base + ["--channel", "0"], ["--channel"]),
            (base + ["--channel", "two"], ["--channel", "two"]),
            (base + ["--channel", "2"], ["--channel 2", "1 channel"]),
            (base + ["--noise-onset", "loud"], ["--noise-onset", "loud"]),
            (base + ["--noise-onset", "1.8,200,305"], ["fluctuating noise onset maximumMilliseconds"]),
            (base + ["--vad-edges", "wide"], ["--vad-edges", "wide"]),
            (base + ["--vad-edges", "0.5,205,200"], ["speech edges maximumLeadMilliseconds"]),
            (base + ["--echo-gate", "barge-in-start=2"], ["--echo-gate", "barge-in-start must be 0 or 1"]),
            (base + ["--echo-gate", "no-echo-open=0.5"], ["--echo-gate", "no-echo-open must be 0 or 1"]),
            (base + ["--no-echo-pause", "maybe"], ["--no-echo-pause", "maybe"]),
            (base + ["--barge-in", "warm-margin-db=40"], ["marginWarmUpDecibels"]),
            (base + ["--barge-in-suspicion", "warm-margin-ms=15"], ["marginWarmUpMilliseconds"]),
            (base + ["--barge-in", "pitch=1.5"], ["pitchMatchLimit"]),
            (base + ["--frobnicate"], ["--frobnicate"]),
            (base + ["--report"], ["--report", "needs a value"]),
            (["process", "--output", output], ["--mic"]),
            (["process", "--mic", mic], ["--output"]),
            (["process", "--mic", mic, "--output", work.path("no/such/dir/out.wav")], ["no/such/dir", "does not exist"]),
            (base + ["--opus", work.path("no/dir/out.opus")], ["out.opus"]),
            (base + ["--report", work.directory.path], ["is a directory"]),
            (["transmogrify"], ["transmogrify"]),
        ]
        for (arguments, fragments) in cases { try expectOneLineError(arguments, naming: fragments) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no output written by a failed run")
    }

    func testHelpForTheToolAndEverySubcommand() throws {
        for arguments in [[], ["--help"], ["-h"], ["help"]] {
            let result = try work.afe(arguments)
            XCTAssertEqual(result.status, 0, "afe \(arguments)")
            XCTAssertEqual(result.stderr, "")
            XCTAssertTrue(result.stdout.hasPrefix("usage: afe <command>"), result.stdout)
            XCTAssertTrue(result.stdout.contains("process"), result.stdout)
        }
        // Every subcommand listed in the top-level usage answers --help on stdout with its own usage.
        let top = try work.afe(["--help"]).stdout
        let commands = top.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertTrue(commands.contains("process"), top)
        for command in commands {
            let result = try work.afe([command, "--help"])
            XCTAssertEqual(result.status, 0, "afe \(command) --help: \(result.stderr)")
            XCTAssertEqual(result.stderr, "")
            XCTAssertTrue(result.stdout.hasPrefix("usage: afe \(command)"), result.stdout)
        }
        let process = try work.afe(["process", "--help"]).stdout
        for option in ["--mic", "--reference", "--output", "--opus", "--vad-labels", "--aec", "--suppression", "--ns",
                       "--rate", "--output-rate", "--delay-ms", "--channel", "--report"] {
            XCTAssertTrue(process.contains(option), "process --help lists \(option)")
        }
    }
}
