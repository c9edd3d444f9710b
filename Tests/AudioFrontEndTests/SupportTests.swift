import Foundation
import XCTest

final class SupportTests: XCTestCase {
    func testSHA256MatchesKnownDigests() {
        XCTAssertEqual(SHA256.hex(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Data(repeating: 0x61, count: 1000)
        XCTAssertEqual(SHA256.hex(long), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    func testMetricsOnKnownSignals() {
        let ref: [Float] = (0..<1000).map { Float(sin(Double($0) * 0.1)) }
        let noisy = ref.map { $0 * 1.1 }
        XCTAssertEqual(SignalMetrics.snr(reference: ref, test: noisy), 20, accuracy: 0.01)
        XCTAssertEqual(SignalMetrics.correlation(ref, noisy), 1, accuracy: 1e-9)
        let f = SignalMetrics.f1(decisions: [true, true, false, false], labels: [true, false, true, false])
        XCTAssertEqual(f.f1, 0.5, accuracy: 1e-9)
    }
}
