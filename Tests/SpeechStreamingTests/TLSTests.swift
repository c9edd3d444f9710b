import Foundation
import SpeechStreaming
import XCTest

/// wss:// against the reference server with a certificate from a throw-away CA: it works with the CA
/// file, and without it the connection fails with a TLS error (verification is never off).
final class TLSTests: XCTestCase {
    func testWSSWithTheCAFileAndTLSFailureWithout() throws {
        let tls = try TLSFixture()
        defer { tls.remove() }
        let server = try ReferenceServer(["--tls-cert", tls.certificatePath, "--tls-key", tls.keyPath])
        for host in ["127.0.0.1", "localhost"] {
            for family in WireFamily.allCases {
                let url = server.url(family == .dashScope ? "/api-ws/v1/inference" : "/ws/v1", scheme: "wss", host: host)
                let trusted = try FaultRun.start(family, server: server, url: url,
                                                 connection: ConnectionOptions(caFilePath: tls.caPath))
                TestAudio.stream(trusted.session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
                trusted.session.stop()
                guard case .completed = trusted.recorder.waitForEnd() else {
                    XCTFail("\(family) wss://\(host) with the CA: \(trusted.recorder.errors)")
                    continue
                }
                XCTAssertEqual(trusted.recorder.sentenceEnds.count, TestAudio.bursts.count, "\(family) wss://\(host)")

                let untrusted = try FaultRun.start(family, server: server, url: url, waitForStart: false)
                untrusted.expectError(.tlsFailure, "\(family) wss://\(host) without the CA")
            }
        }
    }

    /// Without a CA file the client trusts OpenSSL's default store, which is the system store
    /// (/etc/ssl/certs on Debian). Shown without installing anything system-wide: this test runs itself again
    /// in a child process whose default store OpenSSL's own SSL_CERT_FILE variable points at a file. With the
    /// test CA there, the default configuration connects; with another CA there, it fails with tlsFailure.
    func testDefaultTrustIsOpenSSLsDefaultStore() throws {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["AFE_TLS_CHILD_URL"] { // the child: default ConnectionOptions, no CA file
            let run = try FaultRun.start(.dashScope, server: nil, url: url, waitForStart: false)
            if environment["AFE_TLS_CHILD_EXPECT"] == "tlsFailure" {
                run.expectError(.tlsFailure, "child, SSL_CERT_FILE without the test CA")
            } else {
                TestAudio.stream(run.session, pieces: TestAudio.chunks(TestAudio.pcm(), size: 3200))
                run.session.stop()
                guard case .completed = run.recorder.waitForEnd() else { return XCTFail("child: \(run.recorder.errors)") }
            }
            return
        }
        let tls = try TLSFixture(), other = try TLSFixture()
        defer { tls.remove(); other.remove() }
        let server = try ReferenceServer(["--tls-cert", tls.certificatePath, "--tls-key", tls.keyPath])
        let url = server.url("/api-ws/v1/inference", scheme: "wss", host: "localhost")
        for (storeFile, expect) in [(tls.caPath, "completed"), (other.caPath, "tlsFailure")] {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = ["SpeechStreamingTests.TLSTests/testDefaultTrustIsOpenSSLsDefaultStore"]
            child.environment = environment.merging(["SSL_CERT_FILE": storeFile, "AFE_TLS_CHILD_URL": url,
                                                     "AFE_TLS_CHILD_EXPECT": expect]) { $1 }
            let output = Pipe()
            child.standardOutput = output
            child.standardError = output
            try child.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "child expecting \(expect):\n\(text)")
            XCTAssertTrue(text.contains("Executed 1 test, with 0 failures"), "the child ran the test:\n\(text)")
        }
    }

    func testCertificateForAnotherNameIsRefused() throws {
        let tls = try TLSFixture(subjectAltName: "DNS:speech.example.com")
        defer { tls.remove() }
        let server = try ReferenceServer(["--tls-cert", tls.certificatePath, "--tls-key", tls.keyPath])
        // Signed by the trusted CA, but for another name than the one connected to.
        let url = server.url("/ws/v1", scheme: "wss", host: "127.0.0.1")
        let run = try FaultRun.start(.nls, server: server, url: url, connection: ConnectionOptions(caFilePath: tls.caPath),
                                     waitForStart: false)
        let error = run.expectError(.tlsFailure, "host name mismatch")
        XCTAssertNotNil(error)
    }

    func testMissingCAFileIsAConfigurationError() throws {
        XCTAssertThrowsError(try SpeechStreamingSession(configuration: DashScopeConfiguration(
            apiKey: "key", connection: ConnectionOptions(caFilePath: "/nonexistent/ca.pem")))) {
            XCTAssertEqual(($0 as? SpeechStreamingError)?.code, .invalidConfiguration)
        }
    }
}
