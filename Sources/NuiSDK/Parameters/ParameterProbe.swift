import Foundation
import SpeechStreaming

/// The NUI parameter parsers as the calls run them, without an SDK instance or a network: for the fuzz targets
/// (Fuzz/) and their regression tests. Package access only; apps use ``NeoNui``.
///
/// `check` parses `text` as the parameters of one call and returns the result code that call gives for it
/// (`SUCCESS` or a parameter error): `nui_initialize`'s (with save_log off, so no directory is created),
/// `nui_set_params`'s (against a DashScope or an NLS push-mode initialize), `nui_dialog_start`'s dialog_params and
/// `nui_dialog_action`'s. Accepted parameters go on to the streaming settings a dialog would use, and every secret
/// found through the redactor. Any thread; not real-time safe.
package enum NuiParameterProbe {
    package enum Call: CaseIterable, Sendable {
        case initialize, setParamsDashScope, setParamsNLS, dialogStart, dialogAction
    }

    /// A fuzz input (Fuzz/corpus/FuzzNuiParameters): the first byte picks the call (`I` initialize, `D` / `N`
    /// set_params for DashScope / NLS, `S` dialog_start, `A` dialog_action; any other byte modulo 5), the rest is the
    /// text, passed as a C string (up to its first NUL) as a C caller's.
    @discardableResult
    package static func run(fuzzInput bytes: UnsafeRawBufferPointer) -> NuiResultCode {
        guard let first = bytes.first else { return .SUCCESS }
        let letters: [UInt8: Call] = [UInt8(ascii: "I"): .initialize, UInt8(ascii: "D"): .setParamsDashScope,
                                      UInt8(ascii: "N"): .setParamsNLS, UInt8(ascii: "S"): .dialogStart,
                                      UInt8(ascii: "A"): .dialogAction]
        let call = letters[first] ?? Call.allCases[Int(first) % Call.allCases.count]
        let text = Array(bytes.dropFirst()).map { CChar(bitPattern: $0) } + [0]
        return text.withUnsafeBufferPointer { check(call, $0.baseAddress) }
    }

    package static func check(_ call: Call, _ text: UnsafePointer<CChar>?) -> NuiResultCode {
        let redactor = Redactor()
        redactor.add(InitParameters.rawSecrets(text))
        do {
            switch call {
            case .initialize:
                let parameters = try InitParameters(json: text, saveLog: false) { _ = redactor.redact($0) }
                redactor.add(parameters.secrets)
                _ = redactor.redact(url: parameters.url)
            case .setParamsDashScope, .setParamsNLS:
                let initial = call == .setParamsNLS ? nls : dashScope
                let parameters = try RecognitionParameters(json: text, for: initial) { _ = redactor.redact($0) }
                _ = parameters.frontEnd.configuration(sampleRate: parameters.sampleRate)
                _ = StreamingSettings(initParameters: initial, recognition: parameters, dialog: DialogParameters())
            case .dialogStart:
                let dialog = try DialogParameters(json: text) { _ = redactor.redact($0) }
                _ = StreamingSettings(initParameters: dashScope, recognition: recognition, dialog: dialog)
            case .dialogAction:
                _ = try DialogAction(json: text) { _ = redactor.redact($0) }
            }
            return .SUCCESS
        } catch let error as NuiParameterError {
            _ = redactor.redact(error.description)
            return error.code
        } catch {
            return .NUI_ERR_INTERNAL
        }
    }

    private static func initial(_ json: String) -> InitParameters {
        // swiftlint:disable:next force_try
        try! InitParameters(json: json, saveLog: false) { _ in }
    }

    private static let dashScope = initial(#"{"url": "ws://127.0.0.1:9/api-ws/v1/inference", "apikey": "probe-key", "#
        + #""service_mode": "1", "device_id": "probe", "audio_update_manually": "true", "workspace": "/"}"#)
    private static let nls = initial(#"{"url": "ws://127.0.0.1:9/ws/v1", "app_key": "probe-app", "token": "probe-token", "#
        + #""service_mode": "1", "device_id": "probe", "audio_update_manually": "true", "workspace": "/"}"#)
    // swiftlint:disable:next force_try
    private static let recognition = try! RecognitionParameters(
        json: #"{"service_type": 4, "nls_config": {"model": "fun-asr-realtime", "sr_format": "pcm", "sample_rate": 16000}}"#,
        for: dashScope) { _ in }
}
