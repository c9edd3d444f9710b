import Foundation
@testable import NuiSDK
import XCTest

/// Log levels and log_track_level, the capped log files, the capped debug WAVs.
final class LogAndDebugFileTests: XCTestCase {
    var harness: NuiHarness!

    override func setUpWithError() throws { harness = try NuiHarness() }
    override func tearDown() { harness.close() }

    func trackedLevels() -> [NuiSdkLogLevel] {
        harness.nui.callbacks.drain()
        return harness.recorder.logs.map(\.0)
    }

    func testTrackCallbackGetsLinesAtOrAboveBothLevels() {
        // level WARNING, log_track_level INFO (2): only WARNING and ERROR reach the callback.
        XCTAssertEqual(harness.initialize(harness.initParameters(["log_track_level": 2, "unknown_key": 1]), level: .NUI_LOG_LEVEL_WARNING), .SUCCESS)
        XCTAssertEqual(harness.setParams(["service_type": 3]), .NUI_ERR_INVALID_PARAMETER_VALUE)
        var levels = trackedLevels()
        XCTAssertEqual(Set(levels), [.NUI_LOG_LEVEL_WARNING, .NUI_LOG_LEVEL_ERROR], "\(harness.recorder.logs)")
        XCTAssertEqual(harness.nui.nui_release(), .SUCCESS)

        // level VERBOSE, log_track_level ERROR (4): only errors, although everything is logged.
        let before = trackedLevels().count
        XCTAssertEqual(harness.initialize(harness.initParameters(["log_track_level": "4", "unknown_key": 1]), level: .NUI_LOG_LEVEL_VERBOSE), .SUCCESS)
        XCTAssertEqual(harness.setParams(["service_type": 3]), .NUI_ERR_INVALID_PARAMETER_VALUE)
        levels = Array(trackedLevels().dropFirst(before))
        XCTAssertEqual(Set(levels), [.NUI_LOG_LEVEL_ERROR], "\(harness.recorder.logs.dropFirst(before))")
        XCTAssertEqual(harness.nui.nui_release(), .SUCCESS)

        // level INFO, log_track_level VERBOSE: INFO and up.
        let middle = trackedLevels().count
        XCTAssertEqual(harness.initialize(harness.initParameters(["log_track_level": 0]), level: .NUI_LOG_LEVEL_INFO), .SUCCESS)
        levels = Array(trackedLevels().dropFirst(middle))
        XCTAssertTrue(levels.contains(.NUI_LOG_LEVEL_INFO))
        XCTAssertFalse(levels.contains { $0 < .NUI_LOG_LEVEL_INFO })
        XCTAssertEqual(harness.nui.nui_release(), .SUCCESS)

        // log_track_level NONE (5): nothing.
        let last = trackedLevels().count
        XCTAssertEqual(harness.initialize(harness.initParameters(["log_track_level": 5]), level: .NUI_LOG_LEVEL_VERBOSE), .SUCCESS)
        XCTAssertEqual(harness.setParams(["service_type": 3]), .NUI_ERR_INVALID_PARAMETER_VALUE)
        XCTAssertEqual(trackedLevels().count, last)
    }

    func testLogFilesAreCappedAtTwoFiles() throws {
        let limit = 2048
        XCTAssertEqual(harness.initialize(harness.initParameters(["debug_path": harness.debugPath, "max_log_file_size": limit]),
                                          level: .NUI_LOG_LEVEL_VERBOSE, saveLog: true), .SUCCESS)
        for index in 0..<200 { XCTAssertEqual(harness.setParams(["service_type": "x\(index)"]), .NUI_ERR_INVALID_PARAMETER_TYPE) }
        let files = harness.debugFiles()
        XCTAssertEqual(files.map(\.name), ["nui.1.log", "nui.log"])
        for (name, data) in files { XCTAssertLessThanOrEqual(data.count, limit, name) }
        XCTAssertGreaterThan(files[0].data.count, limit - 200, "the previous file was filled before rotating")
        let text = String(decoding: files[1].data, as: UTF8.self)
        XCTAssertTrue(text.contains("nui_set_params"), "the newest lines are in nui.log")
        XCTAssertTrue(text.hasSuffix("\n"))
        XCTAssertEqual(harness.nui.nui_release(), .SUCCESS)
        // A new session keeps the previous log as nui.1.log: still two files.
        XCTAssertEqual(harness.initialize(harness.initParameters(["debug_path": harness.debugPath, "max_log_file_size": limit]),
                                          level: .NUI_LOG_LEVEL_VERBOSE, saveLog: true), .SUCCESS)
        XCTAssertEqual(harness.debugFiles().map(\.name), ["nui.1.log", "nui.log"])
    }

    func testDebugWAVsHoldTheNewestAudioCappedAtTwoFilesPerStream() throws {
        let server = try ReferenceServer()
        defer { server.stop() }
        let limit = 65536
        let mic = try TestVectors.int16("echo_d120ms_16k.wav").samples.withUnsafeBytes { Array($0) }
        let reference = try TestVectors.int16("farend_16k.wav").samples.withUnsafeBytes { Array($0) }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(), ["debug_path": harness.debugPath,
                                                                                     "save_wav": "true", "max_log_file_size": limit]),
                                          saveLog: true), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        harness.push(mic, reference: reference)
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
        harness.nui.callbacks.drain()
        let files = Dictionary(uniqueKeysWithValues: harness.debugFiles().map { ($0.name, $0.data) })
        XCTAssertEqual(Set(files.keys).subtracting(["nui.1.log"]), ["nui.log", "mic.wav", "mic.1.wav", "reference.wav", "reference.1.wav",
                                         "aec_output.wav", "aec_output.1.wav"])
        for (name, data) in files { XCTAssertLessThanOrEqual(data.count, limit, name) }
        for stream in ["mic", "reference", "aec_output"] {
            let previous = try Self.wavData(XCTUnwrap(files["\(stream).1.wav"]), name: stream)
            let current = try Self.wavData(XCTUnwrap(files["\(stream).wav"]), name: stream)
            XCTAssertGreaterThan(previous.count, limit - 64, "\(stream).1.wav was full")
            if stream == "aec_output" { continue }
            // Our own deterministic code: the two files hold exactly the newest pushed bytes, in order.
            let pushed = stream == "mic" ? mic : reference
            let kept = previous + current
            let newest = Array(pushed.suffix(kept.count))
            let firstDifference = newest.indices.first { $0 < kept.count && newest[$0] != kept[$0] }
            XCTAssertTrue(newest == kept, "\(stream): the newest \(kept.count) of \(pushed.count) bytes, byte for byte; "
                + "first difference at \(firstDifference.map(String.init) ?? "none")")
        }
    }

    /// The data chunk of a 16-bit mono 16 kHz WAV whose header sizes match the file.
    static func wavData(_ data: Data, name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
        let bytes = [UInt8](data)
        XCTAssertGreaterThanOrEqual(bytes.count, 44, name, file: file, line: line)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        XCTAssertEqual(String(decoding: bytes[0..<4], as: UTF8.self), "RIFF", name, file: file, line: line)
        XCTAssertEqual(u32(4), bytes.count - 8, "\(name): RIFF size", file: file, line: line)
        XCTAssertEqual(u32(24), 16000, "\(name): rate", file: file, line: line)
        XCTAssertEqual(u32(40), bytes.count - 44, "\(name): data size", file: file, line: line)
        return Array(bytes[44...])
    }
}
