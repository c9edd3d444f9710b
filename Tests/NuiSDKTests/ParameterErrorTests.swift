import AudioFrontEnd
import Foundation
@testable import NuiSDK
import SpeechStreaming
import XCTest

/// Every parameter error of nui_initialize, nui_set_params and nui_dialog_start: the specific result code, a log
/// line naming the key, and nothing changed.
final class ParameterErrorTests: XCTestCase {
    var harness: NuiHarness!

    override func setUpWithError() throws { harness = try NuiHarness() }
    override func tearDown() { harness.close() }

    /// The error lines the track callback got since `from`.
    func errorLines(from: Int) -> [String] {
        harness.nui.callbacks.drain()
        return harness.recorder.logs.dropFirst(from).filter { $0.0 == .NUI_LOG_LEVEL_ERROR }.map(\.1)
    }

    func checkInitialize(_ name: String, _ parameters: [String: Any], saveLog: Bool = false, _ expected: NuiResultCode,
                         key: String, line: UInt = #line) {
        let before = harness.recorder.logs.count
        let code = harness.initialize(parameters, saveLog: saveLog)
        XCTAssertEqual(code, expected, name, line: line)
        let errors = errorLines(from: before)
        XCTAssertTrue(errors.contains { $0.contains(key) && $0.contains("nui_initialize") }, "\(name): \(errors)", line: line)
        XCTAssertNil(harness.nui.nui_get_version(), "\(name): still uninitialized", line: line)
    }

    func testInitializeErrors() {
        let valid = harness.initParameters()
        func without(_ key: String) -> [String: Any] { valid.filter { $0.key != key } }
        func with(_ key: String, _ value: Any) -> [String: Any] { valid.merging([key: value]) { $1 } }
        let nls = valid.filter { $0.key != "apikey" }.merging(["url": "ws://127.0.0.1:9/ws/v1", "app_key": "default", "token": "default"]) { $1 }
        let cases: [(String, [String: Any], NuiResultCode, String)] = [
            ("missing url", without("url"), .NUI_ERR_MISSING_PARAMETER, "url"),
            ("url not a string", with("url", 5), .NUI_ERR_INVALID_PARAMETER_TYPE, "url"),
            ("url http", with("url", "http://127.0.0.1/api-ws/v1/inference"), .NUI_ERR_INVALID_PARAMETER_VALUE, "url"),
            ("url unknown path", with("url", "ws://127.0.0.1/somewhere"), .NUI_ERR_INVALID_PARAMETER_VALUE, "url"),
            ("missing apikey", without("apikey"), .NUI_ERR_MISSING_PARAMETER, "apikey"),
            ("empty apikey", with("apikey", ""), .NUI_ERR_INVALID_PARAMETER_VALUE, "apikey"),
            ("NLS without app_key", nls.filter { $0.key != "app_key" }, .NUI_ERR_MISSING_PARAMETER, "app_key"),
            ("NLS without token", nls.filter { $0.key != "token" }, .NUI_ERR_MISSING_PARAMETER, "token"),
            ("missing service_mode", without("service_mode"), .NUI_ERR_MISSING_PARAMETER, "service_mode"),
            ("service_mode 2", with("service_mode", "2"), .NUI_ERR_INVALID_PARAMETER_VALUE, "service_mode"),
            ("service_mode number", with("service_mode", 1), .NUI_ERR_INVALID_PARAMETER_TYPE, "service_mode"),
            ("missing device_id", without("device_id"), .NUI_ERR_MISSING_PARAMETER, "device_id"),
            ("audio_update_manually maybe", with("audio_update_manually", "maybe"), .NUI_ERR_INVALID_PARAMETER_VALUE, "audio_update_manually"),
            ("audio_update_manually number", with("audio_update_manually", 3), .NUI_ERR_INVALID_PARAMETER_TYPE, "audio_update_manually"),
            ("push mode without workspace", without("workspace"), .NUI_ERR_MISSING_PARAMETER, "workspace"),
            ("workspace missing directory", with("workspace", "/nonexistent/nui"), .NUI_ERR_INVALID_PATH, "workspace"),
            ("save_wav yes", with("save_wav", "yes"), .NUI_ERR_INVALID_PARAMETER_VALUE, "save_wav"),
            ("max_log_file_size tiny", with("max_log_file_size", 10), .NUI_ERR_INVALID_PARAMETER_VALUE, "max_log_file_size"),
            ("max_log_file_size text", with("max_log_file_size", "big"), .NUI_ERR_INVALID_PARAMETER_TYPE, "max_log_file_size"),
            ("log_track_level 6", with("log_track_level", 6), .NUI_ERR_INVALID_PARAMETER_VALUE, "log_track_level"),
            ("log_track_level 2.5", with("log_track_level", 2.5), .NUI_ERR_INVALID_PARAMETER_TYPE, "log_track_level"),
        ]
        for (name, parameters, code, key) in cases { checkInitialize(name, parameters, code, key: key) }
        checkInitialize("save_log without debug_path", valid, saveLog: true, .NUI_ERR_MISSING_PARAMETER, key: "debug_path")
        checkInitialize("debug_path not writable", with("debug_path", "/proc/nui-debug"), saveLog: true, .NUI_ERR_INVALID_PATH,
                        key: "debug_path")
    }

    func testInitializeRefusesTextThatIsNotAJSONObject() {
        for text in [nil, "not json", "[1, 2]", "\"text\""] as [String?] {
            let code = text.map { harness.nui.nui_initialize($0, logLevel: .NUI_LOG_LEVEL_DEBUG, saveLog: false) }
                ?? harness.nui.nui_initialize(nil, logLevel: .NUI_LOG_LEVEL_DEBUG, saveLog: false)
            XCTAssertEqual(code, .NUI_ERR_INVALID_JSON, "\(text ?? "null")")
        }
    }

    func testUnknownKeysAreIgnoredWithAWarningNamingThem() {
        XCTAssertEqual(harness.initialize(harness.initParameters(manual: false, ["colour": "blue"])), .SUCCESS)
        let parameters = NuiHarness.recognitionParameters(nls: ["flavour": 1], top: ["extra_top": true])
        XCTAssertEqual(harness.setParams(parameters), .SUCCESS)
        XCTAssertEqual(harness.start(["mood": "calm"]), .SUCCESS)
        harness.nui.callbacks.drain()
        let warnings = harness.recorder.logs.filter { $0.0 == .NUI_LOG_LEVEL_WARNING }.map(\.1)
        for key in ["colour", "nls_config.flavour", "extra_top", "mood"] {
            XCTAssertTrue(warnings.contains { $0.contains("unknown parameter \(key)") }, "\(key): \(warnings)")
        }
    }

    func testSetParamsErrors() {
        XCTAssertEqual(harness.initialize(harness.initParameters()), .SUCCESS)
        typealias Case = (String, [String: Any], NuiResultCode, String)
        func nls(_ key: String, _ value: Any) -> [String: Any] { NuiHarness.recognitionParameters(nls: [key: value]) }
        func top(_ key: String, _ value: Any) -> [String: Any] { NuiHarness.recognitionParameters(top: [key: value]) }
        var base = NuiHarness.recognitionParameters()
        var withoutModel = base["nls_config"] as! [String: Any]
        withoutModel["model"] = nil
        let cases: [Case] = [
            ("missing service_type", base.filter { $0.key != "service_type" }, .NUI_ERR_MISSING_PARAMETER, "service_type"),
            ("service_type 3", top("service_type", 3), .NUI_ERR_INVALID_PARAMETER_VALUE, "service_type"),
            ("service_type text", top("service_type", "four"), .NUI_ERR_INVALID_PARAMETER_TYPE, "service_type"),
            ("missing nls_config", base.filter { $0.key != "nls_config" }, .NUI_ERR_MISSING_PARAMETER, "nls_config"),
            ("nls_config text", top("nls_config", "x"), .NUI_ERR_INVALID_PARAMETER_TYPE, "nls_config"),
            ("missing model", top("nls_config", withoutModel), .NUI_ERR_MISSING_PARAMETER, "nls_config.model"),
            ("missing sr_format", top("nls_config", ["model": "m", "sample_rate": 16000]), .NUI_ERR_MISSING_PARAMETER, "nls_config.sr_format"),
            ("sr_format mp3", nls("sr_format", "mp3"), .NUI_ERR_INVALID_PARAMETER_VALUE, "nls_config.sr_format"),
            ("sr_format number", nls("sr_format", 1), .NUI_ERR_INVALID_PARAMETER_TYPE, "nls_config.sr_format"),
            ("missing sample_rate", top("nls_config", ["model": "m", "sr_format": "pcm"]), .NUI_ERR_MISSING_PARAMETER, "nls_config.sample_rate"),
            ("sample_rate text", nls("sample_rate", "fast"), .NUI_ERR_INVALID_PARAMETER_TYPE, "nls_config.sample_rate"),
            ("sample_rate array", nls("sample_rate", [16000]), .NUI_ERR_INVALID_PARAMETER_TYPE, "nls_config.sample_rate"),
            ("sample_rate 8000 with AEC and VAD", nls("sample_rate", 8000), .NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "nls_config.sample_rate"),
            ("sample_rate 8000 with VAD", NuiHarness.recognitionParameters(sampleRate: 8000, top: ["enable_aec": false]),
             .NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "nls_config.sample_rate"),
            ("sample_rate 96000", nls("sample_rate", 96000), .NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "nls_config.sample_rate"),
            ("sample_rate 22050", nls("sample_rate", 22050), .NUI_ERR_UNSUPPORTED_SAMPLE_RATE, "nls_config.sample_rate"),
            ("semantic_punctuation_enabled x", nls("semantic_punctuation_enabled", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "semantic_punctuation_enabled"),
            ("semantic_punctuation_enabled 5", nls("semantic_punctuation_enabled", 5), .NUI_ERR_INVALID_PARAMETER_TYPE, "semantic_punctuation_enabled"),
            ("max_sentence_silence 100", nls("max_sentence_silence", 100), .NUI_ERR_INVALID_PARAMETER_VALUE, "max_sentence_silence"),
            ("max_sentence_silence 7000", nls("max_sentence_silence", 7000), .NUI_ERR_INVALID_PARAMETER_VALUE, "max_sentence_silence"),
            ("finish_timeout 500", nls("finish_timeout", 500), .NUI_ERR_INVALID_PARAMETER_VALUE, "finish_timeout"),
            ("finish_timeout text", nls("finish_timeout", "soon"), .NUI_ERR_INVALID_PARAMETER_TYPE, "finish_timeout"),
            ("multi_threshold_mode_enabled []", nls("multi_threshold_mode_enabled", [Any]()), .NUI_ERR_INVALID_PARAMETER_TYPE, "multi_threshold_mode_enabled"),
            ("heartbeat nope", nls("heartbeat", "nope"), .NUI_ERR_INVALID_PARAMETER_VALUE, "heartbeat"),
            ("vocabulary_id number", nls("vocabulary_id", 5), .NUI_ERR_INVALID_PARAMETER_TYPE, "vocabulary_id"),
            ("vocabulary_id empty", nls("vocabulary_id", ""), .NUI_ERR_INVALID_PARAMETER_VALUE, "vocabulary_id"),
            ("instant_vocabulary weight 7", nls("instant_vocabulary", ["word": 7]), .NUI_ERR_INVALID_PARAMETER_VALUE, "instant_vocabulary"),
            ("instant_vocabulary weight text", nls("instant_vocabulary", ["word": "x"]), .NUI_ERR_INVALID_PARAMETER_TYPE, "instant_vocabulary"),
            ("instant_vocabulary array", nls("instant_vocabulary", ["word"]), .NUI_ERR_INVALID_PARAMETER_TYPE, "instant_vocabulary"),
            ("language_hints string", nls("language_hints", "zh"), .NUI_ERR_INVALID_PARAMETER_TYPE, "language_hints"),
            ("language_hints numbers", nls("language_hints", [1]), .NUI_ERR_INVALID_PARAMETER_TYPE, "language_hints"),
            ("speech_noise_threshold 2", nls("speech_noise_threshold", 2), .NUI_ERR_INVALID_PARAMETER_VALUE, "speech_noise_threshold"),
            ("speech_noise_threshold text", nls("speech_noise_threshold", "low"), .NUI_ERR_INVALID_PARAMETER_TYPE, "speech_noise_threshold"),
            ("special_word_filter number", nls("special_word_filter", 5), .NUI_ERR_INVALID_PARAMETER_TYPE, "special_word_filter"),
            ("special_word_filter bad text", nls("special_word_filter", "{oops"), .NUI_ERR_INVALID_PARAMETER_TYPE, "special_word_filter"),
            ("enable_connection_fast_check x", nls("enable_connection_fast_check", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "enable_connection_fast_check"),
            ("enable_aec x", top("enable_aec", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "enable_aec"),
            ("aec_backend foo", top("aec_backend", "foo"), .NUI_ERR_INVALID_PARAMETER_VALUE, "aec_backend"),
            ("aec_suppression_level max", top("aec_suppression_level", "max"), .NUI_ERR_INVALID_PARAMETER_VALUE, "aec_suppression_level"),
            ("aec_tail_ms 5", top("aec_tail_ms", 5), .NUI_ERR_INVALID_PARAMETER_VALUE, "aec_tail_ms"),
            ("enable_ns 2", top("enable_ns", 2), .NUI_ERR_INVALID_PARAMETER_TYPE, "enable_ns"),
            ("ns_backend x", top("ns_backend", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "ns_backend"),
            ("ns_level x", top("ns_level", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "ns_level"),
            ("ns_suppress_db 0", top("ns_suppress_db", 0), .NUI_ERR_INVALID_PARAMETER_VALUE, "ns_suppress_db"),
            ("vad_backend x", top("vad_backend", "x"), .NUI_ERR_INVALID_PARAMETER_VALUE, "vad_backend"),
            ("vad_end_silence 100", top("vad_end_silence", 100), .NUI_ERR_INVALID_PARAMETER_VALUE, "vad_end_silence"),
            ("vad_sensitivity 3", top("vad_sensitivity", 3), .NUI_ERR_INVALID_PARAMETER_VALUE, "vad_sensitivity"),
            ("barge_in_suspicion 2", top("barge_in_suspicion", 2), .NUI_ERR_INVALID_PARAMETER_TYPE, "barge_in_suspicion"),
            ("opus_bitrate 100", top("opus_bitrate", 100), .NUI_ERR_INVALID_PARAMETER_VALUE, "opus_bitrate"),
            ("opus_complexity 11", top("opus_complexity", 11), .NUI_ERR_INVALID_PARAMETER_VALUE, "opus_complexity"),
        ]
        for (name, parameters, expected, key) in cases {
            let before = harness.recorder.logs.count
            XCTAssertEqual(harness.setParams(parameters), expected, name)
            let errors = errorLines(from: before)
            XCTAssertTrue(errors.contains { $0.contains(key) && $0.contains("nui_set_params") }, "\(name): \(errors)")
        }
        XCTAssertEqual(harness.nui.nui_set_params(nil), .NUI_ERR_INVALID_JSON)
        XCTAssertEqual(harness.nui.nui_set_params("{"), .NUI_ERR_INVALID_JSON)
        // None of the refused calls set parameters: starting still needs them.
        XCTAssertEqual(harness.start(), .NUI_ERR_PARAMS_NOT_SET)
        base["nls_config"] = ["model": "m", "sr_format": "pcm", "sample_rate": "16000"]
        XCTAssertEqual(harness.setParams(base), .SUCCESS, "sample_rate as a string, as the SDK's own example writes it")
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(sampleRate: 8000, top: ["enable_aec": false, "enable_vad": false])),
                       .SUCCESS, "8000 Hz without AEC and VAD")
    }

    func testNLSTakesOnly8000Or16000() {
        let parameters = harness.initParameters(url: "ws://127.0.0.1:9/api/ws/v1?mc=abcd1234", ["app_key": "default", "token": "default"])
            .filter { $0.key != "apikey" }
        XCTAssertEqual(harness.initialize(parameters), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(sampleRate: 44100)), .NUI_ERR_UNSUPPORTED_SAMPLE_RATE)
        var noModel = NuiHarness.recognitionParameters()
        noModel["nls_config"] = ["sr_format": "pcm", "sample_rate": 16000]
        XCTAssertEqual(harness.setParams(noModel), .SUCCESS, "NLS needs no model")
    }

    func testDialogParameterErrors() {
        XCTAssertEqual(harness.initialize(harness.initParameters()), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        let cases: [(String, [String: Any], NuiResultCode, String)] = [
            ("apikey number", ["apikey": 5], .NUI_ERR_INVALID_PARAMETER_TYPE, "apikey"),
            ("input_context text", ["input_context": "hello"], .NUI_ERR_INVALID_PARAMETER_TYPE, "input_context"),
            ("input_context bad role", ["input_context": [["role": "bot", "content": [["text": "x", "type": "input_text"]]]]],
             .NUI_ERR_INVALID_PARAMETER_VALUE, "input_context[0].role"),
            ("input_context no content", ["input_context": [["role": "user"]]], .NUI_ERR_INVALID_PARAMETER_TYPE, "input_context[0].content"),
        ]
        for (name, parameters, expected, key) in cases {
            let before = harness.recorder.logs.count
            XCTAssertEqual(harness.start(parameters), expected, name)
            XCTAssertTrue(errorLines(from: before).contains { $0.contains(key) }, name)
        }
        XCTAssertEqual(harness.nui.nui_dialog_start(.MODE_VAD, dialogParam: "{}"), .NUI_ERR_UNSUPPORTED_VAD_MODE)
        XCTAssertEqual(harness.nui.nui_dialog_start(.MODE_P2T, dialogParam: "[]"), .NUI_ERR_INVALID_JSON)
    }

    func testDocumentedDefaults() throws {
        var warnings: [String] = []
        let text = NuiHarness.json(harness.initParameters(manual: false).filter { $0.key != "workspace" })
        let initial = try text.withCString { try InitParameters(json: $0, saveLog: false) { warnings.append($0) } }
        XCTAssertEqual(initial.maxLogFileSize, 104_857_600)
        XCTAssertEqual(initial.logTrackLevel, .NUI_LOG_LEVEL_INFO)
        XCTAssertFalse(initial.audioUpdateManually)
        XCTAssertFalse(initial.saveWav)
        XCTAssertEqual(initial.wireProtocol, .dashScope)
        let params = NuiHarness.json(NuiHarness.recognitionParameters())
        let pull = try params.withCString { try RecognitionParameters(json: $0, for: initial) { warnings.append($0) } }
        XCTAssertEqual(pull.frontEnd.echoCancellation, .off, "pull mode: no reference, no AEC")
        XCTAssertNil(pull.frontEnd.voiceDetection)
        XCTAssertEqual(pull.frontEnd.opusBitrate, 24000)
        XCTAssertEqual(pull.frontEnd.opusComplexity, 5)
        var manual = initial
        manual.audioUpdateManually = true
        let push = try params.withCString { try RecognitionParameters(json: $0, for: manual) { warnings.append($0) } }
        XCTAssertEqual(push.frontEnd.echoCancellation, FrontEndConfiguration.defaultEchoCancellation, "push mode: AEC on by default")
        XCTAssertEqual(push.frontEnd.voiceDetection?.segmenter.endSilenceMilliseconds, 1300)
        var library = FrontEndConfiguration.VoiceDetection()
        library.segmenter.endSilenceMilliseconds = 1300
        XCTAssertEqual(push.frontEnd.voiceDetection, library, "the VAD: the Swift API's tuned defaults")
        let sensitive = NuiHarness.json(NuiHarness.recognitionParameters().merging(["vad_sensitivity": -1]) { $1 })
        let low = try sensitive.withCString { try RecognitionParameters(json: $0, for: manual) { warnings.append($0) } }
        guard case .energy(let energy)? = low.frontEnd.voiceDetection?.detector else { return XCTFail("the energy VAD") }
        XCTAssertEqual(energy.thresholdDecibels, 3, accuracy: 1e-5, "vad_sensitivity -1: 2 dB under the default 5 dB")
        XCTAssertEqual(energy.releaseDecibels, 1.2, accuracy: 1e-5)
        XCTAssertEqual(energy.voicing, FrontEndConfiguration.VoiceDetection.quietVoicing)
        XCTAssertNil(push.frontEnd.configuration(sampleRate: 16000).bargeInSuspicion, "no barge-in suspicion by default")
        let suspicious = NuiHarness.json(NuiHarness.recognitionParameters().merging(["barge_in_suspicion": true]) { $1 })
        let ducking = try suspicious.withCString { try RecognitionParameters(json: $0, for: manual) { warnings.append($0) } }
        XCTAssertEqual(ducking.frontEnd.configuration(sampleRate: 16000).bargeInSuspicion,
                       FrontEndConfiguration.suggestedBargeInSuspicion)
        XCTAssertEqual(ducking.frontEnd.configuration(sampleRate: 16000).bargeIn,
                       FrontEndConfiguration.suggestedBargeInWithSuspicion, "the decision beside the suspicion")
        XCTAssertEqual(push.frontEnd.configuration(sampleRate: 16000).bargeIn, FrontEndConfiguration.BargeIn())
        XCTAssertNil(push.dashScope.maxSentenceSilenceMilliseconds, "unset: the service's default applies")
        XCTAssertEqual(push.finishTimeoutMilliseconds, 10000)
        let connection: ConnectionOptions
        if case .dashScope(let configuration) = StreamingSettings(initParameters: manual, recognition: push, dialog: DialogParameters()) {
            connection = configuration.connection
        } else { return XCTFail("a DashScope URL") }
        XCTAssertEqual(connection.finishTimeout, .seconds(10))
        XCTAssertEqual(warnings, [])
    }
}
