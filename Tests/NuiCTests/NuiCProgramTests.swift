import Foundation
import XCTest

/// The C program (Tests/NuiCProgram/nui_demo.c) compiled against nui.h and libnui.so runs a dialog against the
/// reference server: mic and reference pushed from two C threads while "playing", results, completion, the
/// AEC output through the assist callback, and every error path it checks (wrong state, NULL, unknown enums).
final class NuiCProgramTests: XCTestCase {
    static let micVector = "doubletalk_ser0db_16k.wav"
    static let seconds = 12.5

    struct Outcome {
        let run: CProgram.Run
        let aecOutput: [Int16]
    }

    /// Compiles and runs the C program on the double-talk vector (first `seconds` s, pushed at 4x real time).
    func runProgram(srFormat: String, extra: [String] = [], seconds: Double = NuiCProgramTests.seconds) throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nuic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try CProgram.compileDemo(into: directory)
        let server = try ReferenceServer(["--api-key", "demo-key"])
        defer { server.stop() }
        let entry = try TestVectors.entry(Self.micVector)
        _ = try TestVectors.load(Self.micVector) // checks the hashes before the C program reads the files
        _ = try TestVectors.load(entry["reference"] as! String)
        let aecPath = directory.appendingPathComponent("aec.raw").path
        let run = try CProgram.run(program, [server.url(),
                                             TestVectors.directory.appendingPathComponent(Self.micVector).path,
                                             TestVectors.directory.appendingPathComponent(entry["reference"] as! String).path,
                                             "--seconds", String(seconds), "--speed", "4",
                                             "--aec-out", aecPath, "--sr-format", srFormat,
                                             "--workspace", directory.path] + extra, timeout: 120)
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: aecPath))) ?? Data()
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return Outcome(run: run, aecOutput: samples.map { Int16(littleEndian: $0) })
    }

    func assertDialogRan(_ outcome: Outcome, file: StaticString = #filePath, line: UInt = #line) {
        let run = outcome.run
        let context = "C program output:\n\(run.output)"
        print(run.output.split(separator: "\n").last(where: { $0.hasPrefix("summary ") }) ?? "no summary line")
        XCTAssertEqual(run.status, 0, context, file: file, line: line)
        XCTAssertEqual(run.failedChecks, [], file: file, line: line)
        XCTAssertEqual(run.int("failed_checks"), 0, context, file: file, line: line)
        XCTAssertEqual(run.int("started"), 1, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(run.int("sentence_end"), 1, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(run.int("vad_start"), 1, context, file: file, line: line)
        XCTAssertEqual(run.int("completed"), 1, context, file: file, line: line)
        XCTAssertEqual(run.int("asr_error"), 0, context, file: file, line: line)
        XCTAssertEqual(run.int("mic_error"), 0, context, file: file, line: line)
        XCTAssertEqual(run.int("state_open"), 1, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(run.int("state_pause"), 1, context, file: file, line: line)
        XCTAssertEqual(run.int("state_close"), 1, context, file: file, line: line)
        XCTAssertEqual(run.int("response_mismatches"), 0, "all_response differs from nui_get_all_response()",
                       file: file, line: line)
        XCTAssertEqual(run.int("mic_push_errors"), 0, context, file: file, line: line)
        XCTAssertEqual(run.int("reference_push_errors"), 0, context, file: file, line: line)
        XCTAssertGreaterThan(run.int("rms_calls"), 100, context, file: file, line: line)
        // Every pushed mic sample comes back through EVENT_AEC_DATA (up to the last partial 10 ms frame).
        let micBytes = run.int("mic_bytes"), aecBytes = run.int("aec_bytes")
        XCTAssertEqual(aecBytes, outcome.aecOutput.count * 2, context, file: file, line: line)
        XCTAssertGreaterThanOrEqual(aecBytes, micBytes - 320 * 2, "AEC bytes \(aecBytes) of \(micBytes)",
                                    file: file, line: line)
        XCTAssertLessThanOrEqual(aecBytes, micBytes, "AEC bytes \(aecBytes) of \(micBytes)", file: file, line: line)
    }

    /// PCM: the full flow from C, and the AEC output shows the echo removed (far-end-only spans after 3 s).
    func testCProgramRunsADialogAndReceivesEchoCancelledAudio() throws {
        let outcome = try runProgram(srFormat: "pcm")
        assertDialogRan(outcome)
        let mic = try TestVectors.int16(Self.micVector).samples
        let entry = try TestVectors.entry(Self.micVector)
        var micPower = 0.0, outputPower = 0.0
        for span in entry["farend_only"] as! [[Double]] where span[0] >= 3 && span[1] <= Self.seconds {
            let start = Int(span[0] * 16000), end = min(Int(span[1] * 16000), outcome.aecOutput.count)
            guard start < end else { continue }
            let range = start..<end
            micPower += SignalMetrics.power(mic, range) * Double(range.count)
            outputPower += SignalMetrics.power(outcome.aecOutput, range) * Double(range.count)
        }
        XCTAssertGreaterThan(micPower, 0, "no AEC output over the far-end-only spans")
        let erle = SignalMetrics.decibels(micPower / outputPower)
        print("C program, \(Self.micVector), far-end-only ERLE through EVENT_AEC_DATA: \(String(format: "%.1f", erle)) dB")
        XCTAssertGreaterThanOrEqual(erle, 20, "far-end-only ERLE of the AEC data the C program received")
    }

    /// Opus: `sr_format: opus` from C; the SDK encodes, the server decodes and recognizes. The event callback
    /// releases the SDK itself on EVENT_TRANSCRIBER_COMPLETE (no deadlock; STATE_CLOSE follows).
    func testCProgramRunsAnOpusDialogAndReleasesFromItsCallback() throws {
        let outcome = try runProgram(srFormat: "opus", extra: ["--release-in-callback"])
        assertDialogRan(outcome)
        XCTAssertTrue(outcome.run.output.contains("check release inside the event callback got=0 want=0 ok"),
                      outcome.run.output)
    }

    /// Pull mode from C: the SDK asks for the mic audio through `user_data_callback` (4 s at real time).
    func testCProgramRunsAPullModeDialog() throws {
        let run = try runProgram(srFormat: "pcm", extra: ["--pull"], seconds: 4).run
        let context = "C program output:\n\(run.output)"
        XCTAssertEqual(run.status, 0, context)
        XCTAssertEqual(run.failedChecks, [])
        XCTAssertEqual(run.int("pulled_bytes"), 4 * 16000 * 2, context)
        XCTAssertGreaterThan(run.int("pull_calls"), 100, context)
        XCTAssertEqual(run.int("started"), 1, context)
        XCTAssertGreaterThanOrEqual(run.int("sentence_end"), 1, context)
        XCTAssertEqual(run.int("completed"), 1, context)
        XCTAssertEqual(run.int("state_close"), 1, context)
    }

    /// C++: code written for the NUI C++ SDK's `NuiSdk` class compiles against nui.hpp and runs (no server needed:
    /// nothing connects before a dialog starts).
    func testCppProgramUsesTheNuiSdkClass() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nuicpp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try CProgram.compileCppSmoke(into: directory)
        let run = try CProgram.run(program, ["ws://127.0.0.1:9/api-ws/v1/inference"], timeout: 60)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failedChecks, [])
        XCTAssertTrue(run.output.contains("check release got=0 want=0 ok"), run.output)
    }
}
