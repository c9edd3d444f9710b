import Foundation
import XCTest

/// `afe stream` prints nothing secret: not the key a server echoes in its results (the summary's `heard:` line
/// used to carry it verbatim), not the `--url`'s userinfo, secret query values or fragment (its first line printed
/// the URL as given). Everything passes SpeechStreaming's one ``Redactor``.
final class StreamRedactionTests: XCTestCase {
    /// A key the deterministic recognizer says back: its first sentence begins "alpha bravo charlie".
    static let echoedKey = "alpha bravo"
    static let urlSecrets = ["pw-Secret-77", "tok-Secret-88", "sig-Secret-99", "frag-Secret-00", "user-Secret-66"]

    func testNoSecretReachesTheTerminal() throws {
        let server = try ReferenceServer(["--api-key", Self.echoedKey])
        defer { server.stop() }
        let base = server.url()
        let url = base.replacingOccurrences(of: "ws://", with: "ws://user-Secret-66:pw-Secret-77@")
            + "?token=tok-Secret-88&signature=sig-Secret-99&lang=en#frag-Secret-00"
        let command = try AfeCommand()
        defer { command.remove() }
        let result = try command.afe(["stream", "--mic", AfeCommand.vector("nearend_16k.wav"), "--url", url, "--partials",
                                      "--expected", "alpha bravo charlie"],
                                     environment: ["DASHSCOPE_API_KEY": Self.echoedKey])
        let everything = result.stdout + result.stderr
        XCTAssertEqual(result.status, 0, everything)
        let first = result.stdout.split(separator: "\n").first.map(String.init) ?? ""
        XCTAssertTrue(first.contains("ws://***:***@127.0.0.1"), "userinfo masked: \(first)")
        XCTAssertTrue(first.contains("token=***") && first.contains("signature=***") && first.contains("lang=en"),
                      "secret query values masked, others kept: \(first)")
        XCTAssertTrue(first.contains("#***"), "fragment masked: \(first)")
        XCTAssertTrue(result.stdout.contains("*** charlie"), "the echoed key masked where it was heard: \(result.stdout)")
        for secret in [Self.echoedKey] + Self.urlSecrets {
            XCTAssertFalse(everything.contains(secret), "\(secret) printed: \(everything)")
        }
    }
}
