import CNui
import Foundation
import NuiSDK
import XCTest

/// The C header's numbers are NeoNui's: every case of the Swift enums appears in nui_code.h under its name with
/// its raw value, and every number in the header is a Swift case (C-only values and aliases aside).
final class NuiCHeaderTests: XCTestCase {
    /// `name -> value` per enum block of nui_code.h ("" for the anonymous result-code enum); aliases resolved.
    static func headerEnums() throws -> [String: [String: Int]] {
        let text = try String(contentsOf: CProgram.include.appendingPathComponent("nui_code.h"), encoding: .utf8)
        var blocks: [String: [String: Int]] = [:]
        var current: String?
        var values: [String: Int] = [:]
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("typedef enum ") || line == "enum {" {
                current = line == "enum {" ? "" : String(line.split(separator: " ")[2])
                values = [:]
            } else if line.hasPrefix("}"), let name = current {
                blocks[name] = values
                current = nil
            } else if current != nil, let equals = line.firstIndex(of: "=") {
                let name = line[..<equals].trimmingCharacters(in: .whitespaces)
                let rest = line[line.index(after: equals)...].split(separator: ",")[0]
                    .split(separator: "/")[0].trimmingCharacters(in: .whitespaces)
                values[name] = Int(rest) ?? values[rest]
            }
        }
        return blocks
    }

    func assertMatches<E: RawRepresentable & CaseIterable>(_ type: E.Type, block: String, name: (E) -> String,
                                                           file: StaticString = #filePath, line: UInt = #line)
    where E.RawValue == Int32 {
        let header = (try? Self.headerEnums())?[block] ?? [:]
        XCTAssertFalse(header.isEmpty, "no enum \(block) in nui_code.h", file: file, line: line)
        for value in E.allCases {
            XCTAssertEqual(header[name(value)], Int(value.rawValue), "\(block).\(name(value)) in nui_code.h",
                           file: file, line: line)
        }
        let swiftValues = Set(E.allCases.map { Int($0.rawValue) })
        for (key, number) in header where !swiftValues.contains(number) {
            XCTFail("nui_code.h has \(key) = \(number), which is no \(E.self) case", file: file, line: line)
        }
    }

    func testEventsMatchNeoNui() {
        assertMatches(NuiSDK.NuiCallbackEvent.self, block: "NuiCallbackEvent", name: { $0.description })
    }

    func testResultCodesMatchNeoNui() {
        assertMatches(NuiSDK.NuiResultCode.self, block: "", name: { $0.name })
    }

    func testVadModesAndAudioStatesMatchNeoNui() {
        assertMatches(NuiSDK.NuiVadMode.self, block: "NuiVadMode", name: { $0.description })
        assertMatches(NuiSDK.NuiAudioState.self, block: "NuiAudioState", name: { $0.description })
    }

    func testLogLevelsMatchNeoNui() {
        // NuiSdkLogLevel's description is the one-letter tag, so the names are paired here.
        let pairs: [(CNui.NuiSdkLogLevel, NuiSDK.NuiSdkLogLevel)] = [
            (CNui.LOG_LEVEL_VERBOSE, .NUI_LOG_LEVEL_VERBOSE), (CNui.LOG_LEVEL_DEBUG, .NUI_LOG_LEVEL_DEBUG),
            (CNui.LOG_LEVEL_INFO, .NUI_LOG_LEVEL_INFO), (CNui.LOG_LEVEL_WARNING, .NUI_LOG_LEVEL_WARNING),
            (CNui.LOG_LEVEL_ERROR, .NUI_LOG_LEVEL_ERROR), (CNui.LOG_LEVEL_NONE, .NUI_LOG_LEVEL_NONE),
        ]
        XCTAssertEqual(pairs.count, NuiSDK.NuiSdkLogLevel.allCases.count)
        for (c, swift) in pairs { XCTAssertEqual(Int64(c.rawValue), Int64(swift.rawValue), "\(swift)") }
        XCTAssertEqual(CNui.NUI_LOG_LEVEL_WARNING.rawValue, CNui.LOG_LEVEL_WARNING.rawValue)
    }
}
