import Foundation
@testable import NuiSDK
import SpeechStreaming
import XCTest

/// Hostile input through NeoNui: control characters in anything that reaches the HTTP upgrade, a key the server
/// echoes in its results, NULL dialog_params, and pushes far larger than one call may take.
final class HostileInputTests: NuiServerTestCase {
    static let injections = ["sk-abc\r\nX-Injected: 1", "line\nbreak", "tab\there", "nul\u{0}byte", "del\u{7F}"]

    /// CR/LF (and every other control character) is refused where it would reach a header line or the URL:
    /// NUI_ERR_INVALID_PARAMETER_VALUE from the call that takes it, before any connection. An apikey with CR/LF
    /// used to inject headers into the WebSocket upgrade.
    func testControlCharactersAreRefusedInEveryHeaderValue() throws {
        for bad in Self.injections {
            for key in ["apikey", "url", "device_id", "workspace"] {
                XCTAssertEqual(harness.initialize(harness.initParameters([key: bad])), .NUI_ERR_INVALID_PARAMETER_VALUE,
                               "nui_initialize \(key) \(bad.debugDescription)")
            }
            let nls = harness.initParameters(url: "ws://127.0.0.1:9/ws/v1", ["app_key": "appkey", "token": "token-ok"])
            for key in ["app_key", "token"] {
                var parameters = nls
                parameters[key] = bad
                XCTAssertEqual(harness.initialize(parameters), .NUI_ERR_INVALID_PARAMETER_VALUE, "NLS \(key) \(bad.debugDescription)")
            }
        }
        XCTAssertEqual(harness.initialize(harness.initParameters()), .SUCCESS)
        for bad in Self.injections {
            for key in ["model", "vocabulary_id"] {
                XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: [key: bad])), .NUI_ERR_INVALID_PARAMETER_VALUE,
                               "nui_set_params nls_config.\(key) \(bad.debugDescription)")
            }
        }
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(["apikey": Self.injections[0]]), .NUI_ERR_INVALID_PARAMETER_VALUE, "dialog_params apikey")
        let logs = harness.recorder.logs.map(\.1).joined(separator: "\n")
        XCTAssertTrue(logs.contains("must not contain control characters"), logs)
        XCTAssertFalse(logs.contains("sk-abc"), "the refused key is not logged")
    }

    /// The same check guards the streaming client itself, so every surface (RecognitionSession too) refuses.
    func testTheStreamingClientRefusesControlCharacters() {
        for bad in Self.injections {
            let dashScope = [DashScopeConfiguration(url: "ws://127.0.0.1:9/api-ws/v1/inference", apiKey: bad),
                             DashScopeConfiguration(url: "ws://127.0.0.1:9/api-ws/v1/inference", apiKey: "key-ok", workspace: bad),
                             DashScopeConfiguration(apiKey: "key-ok", parameters: DashScopeParameters(model: bad))]
            for configuration in dashScope {
                XCTAssertThrowsError(try SpeechStreamingSession(configuration: configuration), bad.debugDescription) { error in
                    XCTAssertEqual((error as? SpeechStreamingError)?.code, .invalidConfiguration)
                    XCTAssertFalse((error as? SpeechStreamingError)?.message.contains(bad) ?? true, "the value is not echoed")
                }
            }
            var connection = ConnectionOptions()
            connection.userAgent = bad
            let nls = [NLSConfiguration(url: "ws://127.0.0.1:9/ws/v1", token: bad),
                       NLSConfiguration(url: "ws://127.0.0.1:9/ws/v1", appKey: bad),
                       NLSConfiguration(url: "ws://127.0.0.1:9/ws/v1", connection: connection)]
            for configuration in nls {
                XCTAssertThrowsError(try SpeechStreamingSession(configuration: configuration), bad.debugDescription)
            }
        }
    }

    /// nui.h: `dialog_params` "may be \"\" or NULL". NULL used to return NUI_ERR_INVALID_JSON.
    func testNullDialogParamsMeansNone() throws {
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.nui.nui_dialog_start(.MODE_P2T, dialogParam: nil), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(harness.nui.nui_dialog_action(nil), .NUI_ERR_INVALID_JSON, "where text is required, NULL stays an error")
        XCTAssertEqual(harness.nui.nui_dialog_cancel(true), .SUCCESS)
        XCTAssertEqual(harness.nui.nui_set_params(nil), .NUI_ERR_INVALID_JSON)
    }

    /// A key the server says back in its results ("alpha bravo" is the deterministic recognizer's first words)
    /// is masked in the results, the responses, the log, the debug files and the dialog summary (`heard:` of afe
    /// stream).
    func testAKeyEchoedInResultsIsRedactedInTheSummary() throws {
        let key = "alpha bravo"
        let echoing = try ReferenceServer(["--api-key", key])
        defer { echoing.stop() }
        let files = ["apikey": key, "debug_path": harness.debugPath, "save_wav": "true"]
        XCTAssertEqual(harness.initialize(harness.initParameters(url: echoing.url(), files), level: .NUI_LOG_LEVEL_VERBOSE,
                                          saveLog: true), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(nls: ["max_sentence_silence": 500])), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        harness.push(try TestVectors.int16("nearend_16k.wav").samples.prefix(16000 * 6).withUnsafeBytes { Array($0) })
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let summary = try XCTUnwrap(harness.nui.nui_get_dialog_summary())
        XCTAssertFalse(summary.sentences.isEmpty)
        XCTAssertTrue(summary.text.hasPrefix("*** charlie"), "the echoed key masked where it was heard: \(summary.text)")
        harness.nui.callbacks.drain()
        let texts = [summary.text] + summary.sentences.map(\.rawJSON) + [summary.rawJSON ?? ""] + harness.recorder.logs.map(\.1)
            + harness.recorder.events.flatMap { [$0.asrResult, $0.response].compactMap { $0 } }
            + harness.debugFiles().map { String(decoding: $0.data, as: UTF8.self) }
        XCTAssertTrue(texts.filter { $0.contains(key) }.isEmpty, "the key appears in: \(texts.filter { $0.contains(key) }.prefix(3))")
    }

    /// One push takes at most 1 s of audio: 16 MB, and INT_MAX - 1 bytes (mapped, never touched beyond the first
    /// second), return NUI_ERR_AUDIO_BUFFER_FULL at once instead of holding the caller for the processing of hours
    /// of audio; what was refused is counted in the summary.
    func testHugePushesReturnAtOnceAndAreCounted() throws {
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        XCTAssertEqual(NeoNui.maximumPushMilliseconds, 1000)
        let huge = [CChar](repeating: 0, count: 16 << 20)
        let length = Int(Int32.max) - 1
        let mapped = try XCTUnwrap(mmap(nil, length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0))
        XCTAssertNotEqual(mapped, MAP_FAILED)
        defer { munmap(mapped, length) }
        let started = ContinuousClock.now
        XCTAssertEqual(harness.nui.nui_update_audio_data(huge, Len: Int32(huge.count), FirstPack: true), .NUI_ERR_AUDIO_BUFFER_FULL)
        usleep(1_500_000) // the consumer takes the second just pushed
        XCTAssertEqual(harness.nui.nui_update_audio_data(mapped.assumingMemoryBound(to: CChar.self), Len: Int32(length), FirstPack: false),
                       .NUI_ERR_AUDIO_BUFFER_FULL)
        // Generous (debug build, shared cores): two seconds of audio processed, not 18 hours.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd()?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let drops = try XCTUnwrap(harness.nui.nui_get_dialog_summary()?.drops.frontEnd)
        XCTAssertGreaterThanOrEqual(drops.micRefusedBytes, huge.count + length - 2 * 32000, "every refused byte counted")
        XCTAssertLessThanOrEqual(drops.micRefusedBytes, huge.count + length)
    }
}
