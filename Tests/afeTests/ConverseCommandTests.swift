import AudioFrontEnd
import Foundation
import XCTest

/// `afe converse`'s refusals as a user meets them: one `afe:` line each, exit 2 for a malformed command line, 1 for
/// input that cannot be used or a service that cannot be reached. (The whole loop runs in Scripts/converse-check.sh,
/// release build.)
final class ConverseCommandTests: XCTestCase {
    func testErrorsAreOneLine() throws {
        let command = try AfeCommand()
        defer { command.remove() }
        let url = "ws://127.0.0.1:9/api-ws/v1/inference" // nothing listens on the discard port
        let user = AfeCommand.vector("nearend_16k.wav")
        let silent = command.path("silent.wav")
        try AudioFile(int16: [Int16](repeating: 0, count: 16000), sampleRate: 16000).writeWAV(to: silent)
        let cases: [([String], Int32, String)] = [
            (["converse", "--user", user], 2, "afe: --url URL is required"),
            (["converse", "--url", url], 2, "afe: --user FILE (the user's speech) is required"),
            (["converse", "--url", "ws://127.0.0.1:9/ws/v1", "--user", user], 2, "afe: --url must be a DashScope URL"),
            (["converse", "--url", url, "--user", user, "--rt60", "0"], 2, "afe: --rt60 takes a number in 0.05-1.5"),
            (["converse", "--url", url, "--user", user, "--user-at", "-1"], 2, "afe: --user-at takes"),
            (["converse", "--url", url, "--user", user, "--user-from", "3", "--user-to", "2"], 2, "afe: --user-to (2.0 s) must be after"),
            (["converse", "--url", url, "--user", user, "--format", "flac"], 2, "afe: --format takes pcm, wav, mp3 or opus"),
            (["converse", "--url", url, "--user", user, "--rt60", "0.3", "--impulse-response", user], 2, "afe: give the room once"),
            (["converse", "--url", url, "--user", user, "--api-key", "k"], 2, "afe: --api-key is not accepted"),
            (["converse", "--url", url, "--user", command.path("missing.wav")], 1, "afe: --user"),
            (["converse", "--url", url, "--user", silent], 1, "afe: --user \(silent): no speech above -60 dBFS"),
            (["converse", "--url", url, "--user", user, "--user-from", "30"], 1, "afe: --user \(user) holds 21.00 s: nothing from 30.00 s"),
            (["converse", "--url", url, "--user", user, "--impulse-response", silent], 1, "afe: --impulse-response \(silent) is silent"),
            (["converse", "--url", url, "--user", user, "--impulse-response", AfeCommand.vector("farend_16k.wav")], 1,
             "afe: --impulse-response"),
            (["converse", "--url", "wss://dashscope.example/api-ws/v1/inference", "--user", user], 1, "afe: set DASHSCOPE_API_KEY"),
            (["converse", "--url", url, "--user", user], 1, "afe: "),
        ]
        for (arguments, status, prefix) in cases {
            let result = try command.afe(arguments)
            let label = "\(arguments): \(result.stderr)"
            XCTAssertEqual(result.status, status, label)
            XCTAssertTrue(result.stderr.hasPrefix(prefix), label)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one line: \(label)")
        }
    }
}
