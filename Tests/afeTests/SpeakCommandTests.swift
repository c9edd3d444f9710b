import Foundation
import XCTest

/// `afe speak` as a user runs it: the built binary against the reference server's speech synthesis, each format's
/// file checked with an independent tool, and every error as one `afe:` line.
final class SpeakCommandTests: XCTestCase {
    static let secret = "sk-speak-secret-7272"
    static let text = "Hello from afe speak. This is the second sentence."

    func testEveryFormatMakesAFileTheToolsRead() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        let command = try AfeCommand()
        defer { command.remove() }
        for name in ["speech.wav", "speech.pcm", "speech.mp3", "speech.opus"] {
            let output = command.path(name)
            let result = try command.afe(["speak", Self.text, "--output", output, "--url", server.url(),
                                          "--voice", "espeak-en-us", "--sample-rate", "16000", "--word-timestamps"],
                                         environment: ["DASHSCOPE_API_KEY": Self.secret])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("afe speak: 2 sentences, \(Self.text.count) characters"), result.stdout)
            XCTAssertTrue(result.stdout.contains("word timestamps"), result.stdout)
            XCTAssertFalse(result.stdout.contains(Self.secret) || result.stderr.contains(Self.secret))
            XCTAssertFalse(FileManager.default.fileExists(atPath: output + ".partial"))
            let seconds = try duration(output, in: command)
            XCTAssertTrue((2.0...8.0).contains(seconds), "\(name): \(seconds) s")
        }
    }

    /// The file's duration as sox, lame or opusinfo reads it; a WAV must carry its real sizes.
    func duration(_ path: String, in command: AfeCommand) throws -> Double {
        var file = path
        if path.hasSuffix(".pcm") {
            file = path + ".wav"
            XCTAssertEqual(try AfeCommand.run("/usr/bin/sox", ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16",
                                                               "-c", "1", path, file], in: command.directory).status, 0)
        } else if path.hasSuffix(".mp3") {
            file = path + ".wav"
            XCTAssertEqual(try AfeCommand.run("/usr/bin/lame", ["--quiet", "--decode", path, file], in: command.directory).status, 0)
        } else if path.hasSuffix(".opus") {
            let info = try AfeCommand.run("/usr/bin/opusinfo", [path], in: command.directory)
            XCTAssertEqual(info.status, 0, info.stdout + info.stderr)
            file = path + ".wav"
            XCTAssertEqual(try AfeCommand.run("/usr/bin/opusdec", ["--quiet", path, file], in: command.directory).status, 0)
        } else {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let dataSize = data[40..<44].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            XCTAssertEqual(Int(dataSize), data.count - 44, "the WAV header holds the real data size")
        }
        let result = try AfeCommand.run("/usr/bin/soxi", ["-D", file], in: command.directory)
        return Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    func testTextFileAndChunkedText() throws {
        let server = try ReferenceServer()
        let command = try AfeCommand()
        defer { command.remove() }
        let textFile = command.path("answer.txt")
        try "First line of the answer.\nSecond line!\n".write(toFile: textFile, atomically: true, encoding: .utf8)
        let result = try command.afe(["speak", "--text-file", textFile, "--output", command.path("a.wav"), "--url",
                                      server.url(), "--voice", "flite-kal16", "--chunk", "7"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("afe speak: 2 sentences"), result.stdout)
    }

    func testErrorsAreOneLine() throws {
        let server = try ReferenceServer(["--api-key", Self.secret])
        let command = try AfeCommand()
        defer { command.remove() }
        let output = command.path("x.wav")
        let long = command.path("long.txt") // 200,005 characters: 5 beyond what the service takes in one task
        try String(repeating: "word ", count: 40_001).write(toFile: long, atomically: true, encoding: .utf8)
        let cases: [([String], [String: String], Int32, String)] = [
            (["speak", "--text-file", long, "--output", output, "--url", server.url(), "--chunk", "20000"],
             ["DASHSCOPE_API_KEY": Self.secret], 1, "afe: the text is too long for one task: 5 more characters would take the task to 200005"),
            (["speak", "Hi.", "--output", output, "--url", server.url(), "--voice", "nobody"],
             ["DASHSCOPE_API_KEY": Self.secret], 1, "afe: the service failed the task: [tts:]Engine return error code: 418 (InvalidParameter)"),
            (["speak", "Hi.", "--output", output, "--url", server.url()], ["DASHSCOPE_API_KEY": "sk-wrong-key-0000"], 1,
             "afe: ws://127.0.0.1:\(server.port) refused the credentials (HTTP 401)"),
            (["speak", "Hi.", "--output", output, "--url", "ws://127.0.0.1:9/api-ws/v1/inference"], [:], 1,
             "afe: cannot connect to ws://127.0.0.1:9"),
            (["speak", "Hi.", "--output", output, "--url", "wss://dashscope.example/api-ws/v1/inference"], [:], 1,
             "afe: set DASHSCOPE_API_KEY in the environment"),
            (["speak", "--output", output, "--url", server.url()], [:], 2, "afe: the text is required"),
            (["speak", "Hi.", "--output", command.path("x.flac"), "--url", server.url()], [:], 2, "afe: --format is required"),
            (["speak", "Hi.", "--output", output, "--url", server.url(), "--volume", "101"], [:], 2, "afe: --volume takes 0-100"),
            (["speak", "Hi.", "--output", output, "--url", server.url(), "--speech-rate", "nan"], [:], 2, "afe: --speech-rate takes"),
            (["speak", "Hi.", "--output", output, "--url", server.url(), "--sample-rate", "11025"], [:], 2, "afe: --sample-rate takes"),
            (["speak", "--text-file", command.path("missing.txt"), "--output", output, "--url", server.url()], [:], 1,
             "afe: --text-file"),
            (["speak", "Hi.", "--output", output, "--url", server.url(), "--api-key", "k"], [:], 2, "afe: --api-key is not accepted"),
        ]
        for (arguments, environment, status, prefix) in cases {
            let result = try command.afe(arguments, environment: environment)
            let label = "\(arguments): \(result.stderr)"
            XCTAssertEqual(result.status, status, label)
            XCTAssertTrue(result.stderr.hasPrefix(prefix), label)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(label)")
            XCTAssertFalse(result.stderr.contains(Self.secret), label)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "no file after a failure: \(label)")
        }
    }
}
