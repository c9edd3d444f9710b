import AllocationCounter
import CNui
import Foundation
import NuiC
import NuiTTS
import XCTest

/// Local playback through the C ABI (nui_tts.h "Local playback"): the C program Tests/NuiCProgram/nui_tts_playback_demo.c
/// plays a task through each shape (render entry; sink with the ASR SDK as the reference, whose EVENT_AEC_DATA
/// must have the echo removed) and the render entry allocates nothing (the C++ classes: NuiCTtsProgramTests). Under Scripts/asan-tests.sh the programs are compiled with AddressSanitizer, LeakSanitizer at exit.
final class NuiCTtsPlaybackTests: XCTestCase {
    func directory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func testCProgramPlaysThroughTheRenderAndTheSinkShapeWithTheAsrSdkAsReference() throws {
        let directory = try directory("nuittsplay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try CProgram.compile(["nui_tts_playback_demo.c", "nui_demo_support.c"], compiler: CProgram.compiler("cc", "-std=c99"),
                                           name: "nui_tts_playback_demo", into: directory)
        let server = try ReferenceServer()
        defer { server.stop() }
        let run = try CProgram.run(program, [server.url(), directory.path], timeout: 120)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertEqual(run.failedChecks, [], run.output)
        let echo = Double(run.summary["echo"] ?? "") ?? 0, residual = Double(run.summary["residual"] ?? "") ?? 0
        let erle = 10 * log10(echo / max(residual, 1))
        print("C sink playback with the ASR SDK as reference: ERLE of EVENT_AEC_DATA \(String(format: "%.1f", erle)) dB; "
              + (run.output.split(separator: "\n").last { $0.hasPrefix("summary ") }.map(String.init) ?? "no summary"))
        XCTAssertGreaterThan(echo, 0, run.output)
        XCTAssertGreaterThanOrEqual(erle, 25, "the echo of what the C sink played and of the app's earcon is cancelled "
                                        + "(the earcon pushed with nui_push_reference_data, mixed into the playback's reference)")
        XCTAssertGreaterThan(run.int("earcon_pushes"), 100, run.output)
        XCTAssertEqual(run.int("earcon_refused"), 0, "every nui_push_reference_data of the app's earcon taken: \(run.output)")
        XCTAssertGreaterThan(run.int("speech"), 5 * 16000, run.output)
        XCTAssertGreaterThan(run.int("refused_before_dialog"), 0, "pushes before the first dialog are counted")
        // The reference is every sample the sink played from the dialog on, as the mic (one 10 ms buffer either way at
        // the dialog's start, where the push of a buffer may precede the install and its mic follow it, and at the
        // end, where the counts are read a moment before the sink stops).
        XCTAssertEqual(Double(run.int("reference_pushed")), Double(run.int("mic")), accuracy: 320, run.output)
        XCTAssertGreaterThan(run.int("stopped_ms"), 0, "stopped mid-answer: \(run.output)")
        XCTAssertLessThan(run.int("stopped_ms"), run.int("drained_ms"), "stopped mid-answer: \(run.output)")
    }

    /// nui_tts_playback_render from the test thread (the "audio callback") while a task plays: no allocation after
    /// 100 warm-up buffers, and the speech is heard.
    func testTheRenderEntryAllocatesNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let server = try ReferenceServer()
        defer { server.stop() }
        var listener = StreamInputTtsListener()
        let tts = try XCTUnwrap(nui_tts_create(&listener))
        defer { nui_tts_destroy(tts) }
        var config = NuiTtsPlaybackConfig()
        config.buffer_ms = 20_000
        var playback: OpaquePointer?
        XCTAssertEqual(nui_tts_playback_create(&config, &playback), 0)
        defer { nui_tts_playback_destroy(playback) }
        XCTAssertEqual(nui_tts_set_playback(tts, playback), 0)
        let ticket = #"{"url": "\#(server.url())", "apikey": "k", "device_id": "rt"}"#
        let parameters = #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "pcm", "sample_rate": 16000}"#
        XCTAssertEqual(nui_tts_play(tts, ticket, parameters, "Counted on the audio thread. Nothing is allocated here.", nil, 5, false), 0)
        var buffer = [Int16](repeating: 0, count: 160)
        var loud = 0, codes = 0
        var allocations: Int64 = -1
        buffer.withUnsafeMutableBufferPointer { out in
            for call in 0..<800 { // 8 s of audio at about 4 times real time
                if call == 100 { afe_allocation_counter_start() }
                if nui_tts_playback_render(playback, out.baseAddress, 160) != 0 { codes += 1 }
                if out.contains(where: { $0 != 0 }) { loud += 1 }
                usleep(2500)
            }
            allocations = afe_allocation_counter_stop()
        }
        XCTAssertEqual(allocations, 0, "allocations in nui_tts_playback_render after 100 buffers")
        XCTAssertEqual(codes, 0)
        XCTAssertGreaterThan(loud, 100, "the speech played")
    }

    /// The playback events of nui_tts_listener.h are NuiTTS's numbers, one for one.
    func testPlaybackEventNumbersAreNuiTtss() {
        let c: [(NuiTtsPlaybackEvent, StreamInputTtsPlaybackEvent)] = [
            (TTS_PLAYBACK_STARTED, .TTS_PLAYBACK_STARTED), (TTS_PLAYBACK_INPUT_ENDED, .TTS_PLAYBACK_INPUT_ENDED),
            (TTS_PLAYBACK_DRAINED, .TTS_PLAYBACK_DRAINED), (TTS_PLAYBACK_STOPPED, .TTS_PLAYBACK_STOPPED),
            (TTS_PLAYBACK_MIC_REARMED, .TTS_PLAYBACK_MIC_REARMED), (TTS_PLAYBACK_DECODE_FAILED, .TTS_PLAYBACK_DECODE_FAILED),
            (TTS_PLAYBACK_INTERRUPTED, .TTS_PLAYBACK_INTERRUPTED),
        ]
        XCTAssertEqual(c.count, StreamInputTtsPlaybackEvent.allCases.count)
        for (header, swift) in c { XCTAssertEqual(Int64(header.rawValue), Int64(swift.rawValue), "\(swift)") }
    }
}
