import Foundation
@testable import NuiSDK
import XCTest

/// NeoNui against the hostile server (Scripts/hostile-server), DashScope: each failure is one EVENT_ASR_ERROR with
/// its NUI result code (Sources/NuiSDK/ResultCodes.md) within the SDK's documented timeouts.
final class HostilePeerNuiTests: XCTestCase {

    /// Runs one dialog against the hostile server in `mode` (16 kHz PCM pushed at 4× real time, then
    /// `nui_dialog_cancel(false)`); returns the event that ended it and the seconds it took.
    func dialog(_ mode: String, url path: String = "/api-ws/v1/inference", nls: [String: Any] = [:])
        throws -> (end: NuiRecorder.Event?, seconds: Double) {
        let server = try ReferenceServer.hostile(mode)
        let harness = try NuiHarness()
        defer { harness.close(); server.stop() }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url(path))), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: nls)), .SUCCESS)
        let began = Date()
        XCTAssertEqual(harness.start(), .SUCCESS)
        let audio = TestAudio.pcm()
        let nui = harness.nui
        let pusher = Thread {
            for offset in stride(from: 0, to: audio.count, by: 640) {
                let end = min(offset + 640, audio.count)
                let code = audio[offset..<end].withUnsafeBytes {
                    nui.nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32(end - offset),
                                                      FirstPack: offset == 0)
                }
                if code == .NUI_ERR_NO_DIALOG { return }
                usleep(5000)
            }
            _ = nui.nui_dialog_cancel(false)
        }
        pusher.start()
        let end = harness.recorder.waitForEnd(timeout: 30)
        let seconds = Date().timeIntervalSince(began)
        while !pusher.isFinished { usleep(10_000) }
        return (end, seconds)
    }

    func expect(_ mode: String, _ code: NuiResultCode, bound: Double = 15, file: StaticString = #filePath, line: UInt = #line) throws {
        do { // DashScope; NLS through NeoNui is covered by HostileStreamTests (afe stream)
            let path = "/api-ws/v1/inference"
            let (end, seconds) = try dialog(mode, url: path)
            XCTAssertEqual(end?.event, .EVENT_ASR_ERROR, "\(path) \(mode)", file: file, line: line)
            XCTAssertEqual(end?.code, code.rawValue, "\(path) \(mode): \(end?.asrResult ?? "")", file: file, line: line)
            XCTAssertLessThan(seconds, bound, "\(path) \(mode)", file: file, line: line)
            print("hostile NeoNui \(path) \(mode): \(end.map { "\($0.event) \($0.code)" } ?? "none") after "
                  + "\(String(format: "%.2f", seconds)) s: \(end?.asrResult ?? "")")
        }
    }

    /// A flood (10,000 results/s for 10 s) into an app whose callbacks take 0.5 ms: result callbacks beyond
    /// 16,384 waiting are dropped and counted in the dialog summary; the dialog completes; memory stays bounded.
    func testFloodIntoASlowAppDropsAndCounts() throws {
        let server = try ReferenceServer.hostile("flood:rate=10000,seconds=10")
        let harness = try NuiHarness()
        defer { harness.close(); server.stop() }
        harness.recorder.onEvent = { _ in usleep(500) }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: ["finish_timeout": 30000])), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        let before = residentMiB()
        let audio = TestAudio.pcm() + TestAudio.pcm()
        harness.push(audio, speed: 1)
        _ = harness.nui.nui_dialog_cancel(false)
        let end = harness.recorder.waitForEnd(timeout: 60)
        XCTAssertEqual(end?.event, .EVENT_TRANSCRIBER_COMPLETE, end?.asrResult ?? "no end")
        let summary = try XCTUnwrap(harness.nui.nui_get_dialog_summary())
        let results = harness.recorder.events(.EVENT_ASR_PARTIAL_RESULT).count + harness.recorder.events(.EVENT_SENTENCE_END).count
        let sent = (server.log().last { $0["kind"] as? String == "flood-done" }?["sent"] as? Int ?? -1) + 1
        print("hostile NeoNui slow app flood: \(results) of \(sent) result callbacks, \(summary.drops.eventsDropped) dropped "
              + "and counted; RSS \(before) → \(residentMiB()) MiB")
        XCTAssertGreaterThan(summary.drops.eventsDropped, 0)
        XCTAssertGreaterThanOrEqual(results + summary.drops.eventsDropped, sent, "every result called back or counted")
    }

    func testEarlyTaskFinished() throws { try expect("early-finish", .NUI_ERR_MALFORMED_MESSAGE) }
    func testBinaryFrame() throws { try expect("binary", .NUI_ERR_MALFORMED_MESSAGE) }
    func testWronglyTypedJSON() throws { try expect("wrong-types", .NUI_ERR_MALFORMED_MESSAGE) }
    func testOversizedMessage() throws { try expect("oversized", .NUI_ERR_MALFORMED_MESSAGE) }
    func testUnauthorizedUpgrade() throws { try expect("http:status=401", .NUI_ERR_UNAUTHORIZED) }
    func testWrongAcceptHash() throws { try expect("bad-accept", .NUI_ERR_HANDSHAKE_FAILED) }
    func testCloseMidStream() throws { try expect("close", .NUI_ERR_CONNECTION_CLOSED) }
}
