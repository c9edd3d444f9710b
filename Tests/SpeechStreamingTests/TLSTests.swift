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
