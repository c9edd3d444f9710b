import Foundation
@testable import NuiSDK
import XCTest

/// The fuzz target FuzzNuiParameters' seed corpus and any input it found crashing (Fuzz/regressions), replayed
/// through the same code as the fuzzer (NuiParameterProbe.run), without libFuzzer: each gives a result code.
final class FuzzRegressionTests: XCTestCase {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    func replay(_ kind: String) throws -> [String: NuiResultCode] {
        let directory = Self.fuzz.appendingPathComponent("\(kind)/FuzzNuiParameters")
        var codes: [String: NuiResultCode] = [:]
        for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        where !file.lastPathComponent.hasPrefix(".") {
            let bytes = try Data(contentsOf: file)
            codes[file.lastPathComponent] = bytes.withUnsafeBytes { NuiParameterProbe.run(fuzzInput: $0) }
        }
        return codes
    }

    /// The documentation's examples are accepted (the corpus is built from them: Fuzz/make-seeds.py).
    func testSeedCorpusIsAccepted() throws {
        let codes = try replay("corpus")
        XCTAssertGreaterThanOrEqual(codes.count, 10)
        for (name, code) in codes { XCTAssertEqual(code, .SUCCESS, name) }
    }

    func testRegressionsGiveResultCodes() throws {
        _ = try replay("regressions")
    }

    func testBrokenTextGivesParameterErrors() {
        let bad = Array("I{\"url\": 5}".utf8)
        XCTAssertEqual(bad.withUnsafeBytes { NuiParameterProbe.run(fuzzInput: $0) }, .NUI_ERR_INVALID_PARAMETER_TYPE)
        XCTAssertEqual(NuiParameterProbe.check(.dialogAction, nil), .NUI_ERR_INVALID_JSON)
    }
}
