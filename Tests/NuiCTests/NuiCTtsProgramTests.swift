import Foundation
import XCTest

/// The stream-input TTS C ABI (nui_tts.h): the C program Tests/NuiCProgram/nui_tts_demo.c, compiled against the
/// header and libnui.so, synthesizes against the reference server (streamed with the blocking stop, one-shot play,
/// cancel, destroy with a task running) and checks every result code it is given; under Scripts/asan-tests.sh it
/// is compiled with AddressSanitizer and LeakSanitizer checks it at exit.
final class NuiCTtsProgramTests: XCTestCase {
    func testCProgramSynthesizesThroughTheTtsABI() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nuitts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try CProgram.compile(["nui_tts_demo.c"], compiler: CProgram.compiler("cc", "-std=c99"),
                                           name: "nui_tts_demo", into: directory)
        let server = try ReferenceServer()
        defer { server.stop() }
        let run = try CProgram.run(program, [server.url()], timeout: 90)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failedChecks, [], run.output)
        XCTAssertEqual(run.int("complete"), 2, run.output)
        XCTAssertEqual(run.int("failed"), 0, run.output)
        XCTAssertGreaterThan(run.int("bytes"), 16000, run.output)
        XCTAssertGreaterThan(run.int("logs"), 0, run.output)
    }

    /// C++: StreamInputTtsSdk (nui_tts.hpp) synthesizes with start / send / stop, and plays a task through
    /// StreamInputTtsPlayback.
    func testCppProgramUsesTheStreamInputTtsSdkClass() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nuittscpp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try CProgram.compile(["nui_tts_cpp_smoke.cpp"], compiler: CProgram.compiler("c++", "-std=c++11"),
                                           name: "nui_tts_cpp_smoke", into: directory)
        let server = try ReferenceServer()
        defer { server.stop() }
        let run = try CProgram.run(program, [server.url()], timeout: 60)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failedChecks, [], run.output)
        XCTAssertEqual(run.int("complete"), 1, run.output)
        XCTAssertEqual(run.int("version"), 1, run.output)
        XCTAssertEqual(run.int("rearmed"), 1, "StreamInputTtsPlayback played the task to its end: \(run.output)")
    }
}
