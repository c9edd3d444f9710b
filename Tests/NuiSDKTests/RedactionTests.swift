import Foundation
@testable import NuiSDK
import SpeechStreaming
import XCTest

/// The API key, a per-dialog key and a Tingwu meeting token never appear in any log line, log or WAV file,
/// event result, response or error message, even where the SDK would print them (a key name, the URL, errors).
final class RedactionTests: XCTestCase {
    static let dialogKey = "st-dialog-key-5be3a0f6c7"
    static let meetingToken = "mc-token-e8f1a27c90d3"

    var everything: [String] = []

    /// Everything the SDK told the app and wrote to disk in `harness`.
    func collect(_ harness: NuiHarness) {
        harness.nui.callbacks.drain()
        everything += harness.recorder.logs.map(\.1)
        everything += harness.recorder.events.flatMap { [$0.asrResult, $0.response].compactMap { $0 } }
        everything += harness.debugFiles().map { String(decoding: $0.data, as: UTF8.self) }
    }

    func testSecretsAppearNowhere() throws {
        let secrets = [NuiHarness.apiKey, Self.dialogKey, Self.meetingToken]
        // A DashScope dialog, with every log and debug file on, a key as an (unknown) parameter name, a fresh key
        // per dialog, and a server that refuses the key (its error is reported).
        for serverKey in [Self.dialogKey, "some-other-key"] {
            let server = try ReferenceServer(["--api-key", serverKey])
            let harness = try NuiHarness()
            let parameters = harness.initParameters(url: server.url(), ["debug_path": harness.debugPath, "save_wav": "true",
                                                                         NuiHarness.apiKey: "x", "log_track_level": 0])
            XCTAssertEqual(harness.initialize(parameters, level: .NUI_LOG_LEVEL_VERBOSE, saveLog: true), .SUCCESS)
            XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
            XCTAssertEqual(harness.start(["apikey": Self.dialogKey, Self.dialogKey: 1]), .SUCCESS)
            if serverKey == Self.dialogKey {
                XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
                harness.push(try TestVectors.int16("nearend_16k.wav").samples.prefix(16000 * 5).withUnsafeBytes { Array($0) })
                XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
                XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
            } else {
                XCTAssertEqual(harness.recorder.waitForEnd()?.code, NuiResultCode.NUI_ERR_UNAUTHORIZED.rawValue)
            }
            _ = harness.nui.nui_release()
            collect(harness)
            harness.close()
            server.stop()
        }
        // A Tingwu meeting URL carries its token in the query; the SDK logs the URL.
        let server = try ReferenceServer(["--api-key", Self.meetingToken])
        let harness = try NuiHarness()
        var parameters = harness.initParameters(url: server.url("/api/ws/v1") + "?mc=\(Self.meetingToken)",
                                                ["app_key": "default", "token": "default", "debug_path": harness.debugPath])
        parameters["apikey"] = nil
        XCTAssertEqual(harness.initialize(parameters, level: .NUI_LOG_LEVEL_VERBOSE, saveLog: true), .SUCCESS)
        var params = NuiHarness.recognitionParameters()
        params["nls_config"] = ["sr_format": "pcm", "sample_rate": 16000]
        XCTAssertEqual(harness.setParams(params), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        _ = harness.nui.nui_release()
        collect(harness)
        harness.close()
        server.stop()

        XCTAssertGreaterThan(everything.count, 100, "enough was collected to mean something")
        XCTAssertTrue(everything.contains { $0.contains("unknown parameter *** ignored") }, "the key-named parameter was logged, redacted")
        XCTAssertTrue(everything.contains { $0.contains("mc=***") }, "the meeting URL was logged, redacted")
        for secret in secrets {
            let leaks = everything.filter { $0.contains(secret) }
            XCTAssertTrue(leaks.isEmpty, "\(leaks.count) texts contain a secret, e.g. \(leaks.first.map { String($0.prefix(200)) } ?? "")")
        }
    }

    func testRedactorReplacesLongestSecretsFirst() {
        let redactor = Redactor()
        redactor.add(["abcd", "abcdefgh", "xy"])
        XCTAssertEqual(redactor.redact("key abcdefgh and abcd and xy"), "key *** and *** and xy")
    }

    /// URLs shown to a person: userinfo, fragment and secret-named query values masked (token, key, signature,
    /// Tingwu's mc, …); other query values kept; known secrets masked anywhere.
    func testRedactorMasksTheSecretsOfAURL() {
        let redactor = Redactor(secrets: ["sk-known-1234"])
        let url = "wss://user1:pa55word@host.example:8443/api/ws/v1?mc=MEET-77aa&token=t0k3n-x&X-Amz-Signature=abc123"
            + "&access_key=AK-9&format=pcm&note=sk-known-1234#frag-9"
        XCTAssertEqual(redactor.redact(url: url), "wss://***:***@host.example:8443/api/ws/v1?mc=***&token=***&X-Amz-Signature=***"
                       + "&access_key=***&format=pcm&note=***#***")
        XCTAssertEqual(Set(Redactor.secrets(inURL: url)), ["user1", "pa55word", "frag-9", "MEET-77aa", "t0k3n-x", "abc123", "AK-9"])
        XCTAssertEqual(redactor.redact(url: "not a url sk-known-1234"), "not a url ***")
        XCTAssertEqual(redactor.redact(url: "ws://127.0.0.1:8080/api-ws/v1/inference"), "ws://127.0.0.1:8080/api-ws/v1/inference")
        let secretURL = "wss://u-Secret-1:p-Secret-2@h.example/api-ws/v1/inference?token=t-Secret-3#f-Secret-4"
        let descriptions = [DashScopeConfiguration(url: secretURL, apiKey: "k-Secret-5").description,
                            NLSConfiguration(url: secretURL.replacingOccurrences(of: "api-ws/v1/inference", with: "ws/v1"),
                                             token: "k-Secret-5").description]
        for text in descriptions { XCTAssertFalse(text.contains("Secret"), "a configuration's description: \(text)") }
    }
}
