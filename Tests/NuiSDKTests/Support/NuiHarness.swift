import Foundation
@testable import NuiSDK
import XCTest

/// One NeoNui instance (not the singleton) with a recorder, a scratch directory for workspace and debug_path, and
/// builders for the JSON parameters. Released in `close()`.
final class NuiHarness {
    static let apiKey = "sk-test-Secret-7f3a9c21e8d4b605"
    let nui = NeoNui()
    let recorder: NuiRecorder
    let directory: String

    init(printLogs: Bool = false) throws {
        recorder = NuiRecorder(nui)
        directory = NSTemporaryDirectory() + "nui-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        nui.logger.setPrinting(printLogs)
        nui.delegate = recorder
    }

    func close() {
        _ = nui.nui_release()
        nui.callbacks.drain()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var debugPath: String { directory + "/debug" }

    /// Connection parameters for DashScope at `url` (push mode by default).
    func initParameters(url: String = "ws://127.0.0.1:9/api-ws/v1/inference", manual: Bool = true,
                        _ extra: [String: Any] = [:]) -> [String: Any] {
        var parameters: [String: Any] = ["url": url, "apikey": Self.apiKey, "service_mode": "1", "device_id": "test-device",
                                         "audio_update_manually": manual ? "true" : "false", "workspace": directory]
        parameters.merge(extra) { $1 }
        return parameters
    }

    /// Recognition parameters (`service_type` 4, `nls_config`).
    static func recognitionParameters(format: String = "pcm", sampleRate: Any = 16000, model: String = "paraformer-realtime-v2",
                                      nls extra: [String: Any] = [:], top: [String: Any] = [:]) -> [String: Any] {
        var nls: [String: Any] = ["model": model, "sr_format": format, "sample_rate": sampleRate]
        nls.merge(extra) { $1 }
        var parameters: [String: Any] = ["service_type": 4, "nls_config": nls]
        parameters.merge(top) { $1 }
        return parameters
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @discardableResult
    func initialize(_ parameters: [String: Any], level: NuiSdkLogLevel = .NUI_LOG_LEVEL_DEBUG, saveLog: Bool = false) -> NuiResultCode {
        nui.nui_initialize(Self.json(parameters), logLevel: level, saveLog: saveLog)
    }

    @discardableResult
    func setParams(_ parameters: [String: Any]) -> NuiResultCode { nui.nui_set_params(Self.json(parameters)) }

    @discardableResult
    func start(_ dialog: [String: Any] = [:]) -> NuiResultCode { nui.nui_dialog_start(.MODE_P2T, dialogParam: Self.json(dialog)) }

    /// Pushes `bytes` (and `reference`, sample-aligned) in 20 ms pieces at `speed` × real time (16 kHz). The
    /// pipeline keeps up at that pace, so every push must succeed (a partly refused push cannot be retried exactly).
    func push(_ bytes: [UInt8], speed: Double = 8, reference: [UInt8]? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let chunk = 640
        let start = Date()
        var failures = 0
        for offset in stride(from: 0, to: bytes.count, by: chunk) {
            let end = min(offset + chunk, bytes.count)
            if let reference, end <= reference.count {
                let code = reference[offset..<end].withUnsafeBytes {
                    nui.nui_push_reference_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32(end - offset), FirstPack: false)
                }
                if code != .SUCCESS { failures += 1 }
            }
            let code = bytes[offset..<end].withUnsafeBytes {
                nui.nui_update_audio_data($0.baseAddress!.assumingMemoryBound(to: CChar.self), Len: Int32(end - offset), FirstPack: offset == 0)
            }
            if code != .SUCCESS { failures += 1 }
            let due = Double(end) / 32000 / speed - Date().timeIntervalSince(start)
            if due > 0 { Thread.sleep(forTimeInterval: due) }
        }
        XCTAssertEqual(failures, 0, "pushes that did not return SUCCESS", file: file, line: line)
    }

    /// Every file in debug_path with its contents.
    func debugFiles() -> [(name: String, data: Data)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: debugPath)) ?? []
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: debugPath + "/" + name).map { (name, $0) }
        }
    }
}
