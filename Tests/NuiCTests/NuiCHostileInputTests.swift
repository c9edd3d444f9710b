import CNui
import Foundation
import NuiC
import NuiSDK
import XCTest

/// The C ABI against what nui.h promises for hostile arguments: NULL `dialog_params` is none (it returned
/// 240100), a key with CR/LF is refused (it injected HTTP headers), one push takes at most NUI_MAX_PUSH_MS.
final class NuiCHostileInputTests: XCTestCase {
    func testHostileArgumentsGetTheDocumentedCodes() throws {
        let server = try ReferenceServer()
        defer { server.stop() }
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("nuihostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workspace) }
        var listener = NuiSdkListener()
        func parameters(key: String) -> String {
            #"{"url":"\#(server.url())","apikey":"\#(key)","device_id":"c","service_mode":"1","#
                + #""audio_update_manually":"true","workspace":"\#(workspace.path)"}"#
        }
        XCTAssertEqual(nui_initialize(parameters(key: #"k\r\nX-Injected: 1"#), &listener, LOG_LEVEL_NONE, false),
                       Int32(NUI_ERR_INVALID_PARAMETER_VALUE), "CR/LF in apikey")
        XCTAssertEqual(nui_initialize(parameters(key: "key-ok"), &listener, LOG_LEVEL_NONE, false), 0)
        defer { _ = nui_release() }
        XCTAssertEqual(nui_set_params(#"{"service_type":4,"nls_config":{"model":"fun-asr-realtime","sr_format":"pcm","sample_rate":16000}}"#), 0)
        XCTAssertEqual(nui_dialog_start(MODE_P2T, #"{"apikey":"k\nX: 1"}"#), Int32(NUI_ERR_INVALID_PARAMETER_VALUE))
        XCTAssertEqual(nui_dialog_start(MODE_P2T, nil), 0, "nui.h: dialog_params may be NULL")
        XCTAssertEqual(Int(NUI_MAX_PUSH_MS), NeoNui.maximumPushMilliseconds, "the header and the SDK agree")
        let huge = [CChar](repeating: 0, count: 4 << 20)
        let started = ContinuousClock.now
        XCTAssertEqual(nui_update_audio_data(huge, Int32(huge.count), false), Int32(NUI_ERR_AUDIO_BUFFER_FULL))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "1 s of audio processed, not 131 s")
        XCTAssertEqual(nui_dialog_cancel(true), 0)
    }
}
