import Foundation
@testable import NuiSDK
import XCTest

/// The published numbers (Sources/NuiSDK/ResultCodes.md) and the code agree, both ways, and never collide.
final class NumberingTests: XCTestCase {
    func testResultCodeTableMatchesTheEnum() throws {
        let rows = try ResultCodesDocument.table("NuiResultCode")
        let documented = Dictionary(uniqueKeysWithValues: rows.map { (ResultCodesDocument.name($0[1]), Int32($0[0])!) })
        let actual = Dictionary(uniqueKeysWithValues: NuiResultCode.allCases.map { ($0.name, $0.rawValue) })
        XCTAssertEqual(documented, actual)
        XCTAssertEqual(Set(NuiResultCode.allCases.map(\.rawValue)).count, NuiResultCode.allCases.count)
        XCTAssertEqual(NuiResultCode.SUCCESS.rawValue, 0)
        XCTAssertEqual("\(NuiResultCode.NUI_ERR_MISSING_PARAMETER)", "NUI_ERR_MISSING_PARAMETER")
    }

    func testEventTableMatchesTheEnum() throws {
        let rows = try ResultCodesDocument.table("NuiCallbackEvent")
        let documented = Dictionary(uniqueKeysWithValues: rows.map { (ResultCodesDocument.name($0[1]), Int32($0[0])!) })
        let actual = Dictionary(uniqueKeysWithValues: NuiCallbackEvent.allCases.map { ($0.description, $0.rawValue) })
        XCTAssertEqual(documented, actual)
        XCTAssertEqual(EVENT_MIC_EEROR, EVENT_MIC_ERROR, "the Tingwu document's spelling")
    }

    /// Every event named in the two NUI documents (shared/docs/reference: real-time ASR iOS SDK, Tingwu ingest).
    func testEveryEventOfBothSDKDocumentsExists() {
        let realtime = ["EVENT_TRANSCRIBER_STARTED", "EVENT_VAD_START", "EVENT_VAD_END", "EVENT_ASR_PARTIAL_RESULT",
                        "EVENT_ASR_ERROR", "EVENT_MIC_ERROR", "EVENT_SENTENCE_END", "EVENT_TRANSCRIBER_COMPLETE", "EVENT_AEC_DATA"]
        let tingwu = ["EVENT_VAD_START", "EVENT_VAD_END", "EVENT_ASR_PARTIAL_RESULT", "EVENT_ASR_RESULT", "EVENT_ASR_ERROR",
                      "EVENT_MIC_EEROR", "EVENT_SENTENCE_START", "EVENT_SENTENCE_END", "EVENT_SENTENCE_SEMANTICS",
                      "EVENT_RESULT_TRANSLATED", "EVENT_TRANSCRIBER_COMPLETE", "EVENT_MIC_ERROR"]
        let known = Set(NuiCallbackEvent.allCases.map(\.description))
        for name in realtime + tingwu where name != "EVENT_MIC_EEROR" { XCTAssertTrue(known.contains(name), name) }
        XCTAssertEqual(NuiCallbackEvent.EVENT_MIC_EEROR, EVENT_MIC_ERROR)
    }

    func testOtherEnumsMatchTheDocument() throws {
        let rows = try ResultCodesDocument.table("NuiAudioState, NuiVadMode, NuiSdkLogLevel")
        for row in rows {
            let value = Int32(row[0])!
            if !row[1].isEmpty { XCTAssertEqual(NuiAudioState(rawValue: value)?.description, ResultCodesDocument.name(row[1])) }
            if !row[2].isEmpty { XCTAssertEqual(NuiVadMode(rawValue: value)?.description, ResultCodesDocument.name(row[2])) }
            XCTAssertEqual("\(NuiSdkLogLevel(rawValue: value)!)".isEmpty, false)
            XCTAssertEqual(ResultCodesDocument.name(row[3]), Self.logLevelName(value))
        }
        XCTAssertEqual(rows.count, NuiSdkLogLevel.allCases.count)
    }

    static func logLevelName(_ value: Int32) -> String {
        ["NUI_LOG_LEVEL_VERBOSE", "NUI_LOG_LEVEL_DEBUG", "NUI_LOG_LEVEL_INFO", "NUI_LOG_LEVEL_WARNING", "NUI_LOG_LEVEL_ERROR",
         "NUI_LOG_LEVEL_NONE"][Int(value)]
    }
}
