import Foundation
@testable import SpeechStreaming
import XCTest

/// Configuration checks at creation (typed errors naming the value), secrets kept out of descriptions
/// and errors, and URL parsing.
final class ConfigurationTests: XCTestCase {
    func assertInvalid(_ make: @autoclosure () throws -> Any, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try make(), file: file, line: line) { error in
            let e = error as? SpeechStreamingError
            XCTAssertEqual(e?.code, .invalidConfiguration, "\(error)", file: file, line: line)
            XCTAssertTrue(e?.message.contains(fragment) == true, "'\(e?.message ?? "")' names \(fragment)", file: file, line: line)
        }
    }

    func testDashScopeValuesAreChecked() {
        func make(_ change: (inout DashScopeConfiguration) -> Void) -> () throws -> Any {
            var config = DashScopeConfiguration(apiKey: "sk-abcdef")
            change(&config)
            return { try DashScopeProtocol(config) }
        }
        assertInvalid(try make { $0.apiKey = "" }(), "apiKey")
        assertInvalid(try make { $0.url = "https://dashscope.aliyuncs.com/api-ws/v1/inference" }(), "scheme")
        assertInvalid(try make { $0.url = "not a url" }(), "URL")
        assertInvalid(try make { $0.parameters.maxSentenceSilenceMilliseconds = 100 }(), "max_sentence_silence")
        assertInvalid(try make { $0.parameters.speechNoiseThreshold = 1.5 }(), "speech_noise_threshold")
        assertInvalid(try make { $0.parameters.instantVocabulary = ["x": 7] }(), "weight")
        assertInvalid(try make { $0.parameters.sampleRate = 4000 }(), "sample_rate")
        assertInvalid(try make { $0.connection.frameDuration = .milliseconds(5) }(), "frameDuration")
        assertInvalid(try make { $0.connection.startTimeout = .zero }(), "startTimeout")
        assertInvalid(try make { $0.connection.reconnection.maxAttempts = 0 }(), "maxAttempts")
        assertInvalid(try make { $0.connection.reconnection.catchUpSpeed = 0.5 }(), "catchUpSpeed")
        XCTAssertNoThrow(try make { _ in }())
    }

    /// The defaults the issue and NUI ask for: task-started within 10 s, reconnection off (NUI's
    /// enable_reconnection), certificates checked against the system store (no CA file), 100 ms frames, a
    /// bounded replay buffer and a 2× catch-up after a reconnection.
    func testDefaults() {
        let options = ConnectionOptions()
        XCTAssertEqual(options.startTimeout, .seconds(10))
        XCTAssertEqual(options.finishTimeout, .seconds(10))
        XCTAssertNil(options.caFilePath)
        XCTAssertEqual(options.frameDuration, .milliseconds(100))
        XCTAssertFalse(options.reconnection.isEnabled)
        XCTAssertEqual(options.reconnection, .disabled)
        XCTAssertEqual(options.reconnection.replayCapacityBytes, 1 << 20)
        XCTAssertEqual(options.reconnection.catchUpSpeed, 2)
    }

    func testNLSValuesAreChecked() {
        assertInvalid(try NLSProtocol(NLSConfiguration(url: "ws://h/ws/v1", sampleRate: 44100)), "8000 or 16000")
        assertInvalid(try NLSProtocol(NLSConfiguration(url: "ws://h/ws/v1", maxSentenceSilenceMilliseconds: 9000)),
                      "max_sentence_silence")
        assertInvalid(try JSONValue(parsing: "{not json"), "JSON")
    }

    func testSecretsStayOutOfDescriptionsAndErrors() throws {
        let key = "sk-very-secret-1234"
        let dash = DashScopeConfiguration(apiKey: key)
        XCTAssertFalse(String(describing: dash).contains(key), String(describing: dash))
        let nls = NLSConfiguration(url: "wss://tingwu.example.com/api/ws/v1?mc=meeting-secret", token: "tok-secret")
        XCTAssertFalse(String(describing: nls).contains("meeting-secret"), String(describing: nls))
        XCTAssertFalse(String(describing: nls).contains("tok-secret"))
        let error = SpeechStreamingError(.taskFailed, "bad key \(key)", serverCode: key, rawJSON: #"{"k":"\#(key)"}"#)
            .redacting([key])
        XCTAssertFalse(String(reflecting: error).contains(key), String(reflecting: error))
        XCTAssertEqual(error.message, "bad key ***")
        // Invalid URLs are reported without their query, which may hold a token.
        XCTAssertThrowsError(try Endpoint(url: "http://host/ws/v1?token=tok-secret")) {
            XCTAssertFalse("\($0)".contains("tok-secret"), "\($0)")
        }
    }

    func testEndpointDefaultsAndQuery() throws {
        let plain = try Endpoint(url: "ws://127.0.0.1/api-ws/v1/inference/")
        XCTAssertEqual([plain.usesTLS ? "tls" : "plain", plain.host, "\(plain.port)", plain.pathAndQuery],
                       ["plain", "127.0.0.1", "80", "/api-ws/v1/inference/"])
        let secure = try Endpoint(url: "wss://h.example.com:8443", extraQuery: [("token", "t")])
        XCTAssertEqual([secure.usesTLS ? "tls" : "plain", secure.host, "\(secure.port)", secure.pathAndQuery],
                       ["tls", "h.example.com", "8443", "/?token=t"])
        XCTAssertEqual(secure.displayName, "wss://h.example.com:8443")
    }

    func testJSONValueRoundTrip() throws {
        let value = try JSONValue(parsing: #"{"a": [1, 2.5, true, null, "x"], "b": {"c": false}}"#)
        XCTAssertEqual(value, ["a": [1, 2.5, true, .null, "x"], "b": ["c": false]])
    }
}
