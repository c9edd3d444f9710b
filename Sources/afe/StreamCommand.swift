import AudioFrontEnd
import Foundation
import NuiSDK

/// `afe stream`: streams files through the NUI SDK (``NeoNui``) exactly as a ported NUI app pushes audio, printing
/// what the recognizer hears, then the summary of the dialog.
enum StreamCommand {
    /// How far the pushed mic may run ahead of the echo-cancelled audio when not in real time (the SDK's
    /// pipeline holds 2 s and drops beyond).
    static let maximumLead = 1.0

    static func run(_ options: StreamOptions) throws {
        // NUI takes mic and reference at one rate, nls_config.sample_rate: the mic's.
        let input = try InputAudio(mic: options.mic, channel: options.frontEnd.channel, reference: options.reference)
            .referenceAtMicRate()
        let rate = input.micFile.sampleRate
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("afe-stream-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workspace) }
        let initJSON = try options.initParameters(environment: ProcessInfo.processInfo.environment, workspace: workspace)
        let hasReference = options.reference != nil
        let aec = options.echoCancellation(hasReference: hasReference)
        let paramsJSON = try options.recognitionParameters(sampleRate: rate, hasReference: hasReference)

        let nui = NeoNui.get_instance()
        let listener = StreamListener(partials: options.partials, inPlace: options.partials == nil && isatty(STDOUT_FILENO) == 1)
        nui.delegate = listener
        let debug = options.debugPath != nil
        try check("nui_initialize", nui.nui_initialize(initJSON, logLevel: debug ? .NUI_LOG_LEVEL_INFO : .NUI_LOG_LEVEL_NONE,
                                                       saveLog: debug))
        defer { nui.nui_release() }
        try check("nui_set_params", nui.nui_set_params(paramsJSON))
        let version = nui.nui_get_version().map { String(cString: $0) } ?? "NeoNui"
        let target = "\(options.wire), \(options.format) at \(options.format == "opus" ? (rate == 8000 ? 8000 : 16000) : rate) Hz"
        print("afe stream: \(options.mic) (\(String(format: "%.1f", input.micFile.durationSeconds)) s at \(rate) Hz) → "
              + "\(options.redactor.redact(url: options.url)) (\(target)) through \(version)")
        try check("nui_dialog_start", nui.nui_dialog_start(.MODE_P2T, dialogParam: ""))
        if aec { nui.nui_dialog_action(#"{"type":"action","command":"play_start"}"#) }
        feed(input, through: nui, listener: listener, reference: aec, realtime: options.realtime)
        if aec { nui.nui_dialog_action(#"{"type":"action","command":"play_over"}"#) }
        nui.nui_dialog_cancel(false)
        try listener.waitForEnd()
        guard let summary = nui.nui_get_dialog_summary() else {
            throw NuiFailure(message: "stream: the SDK reported no summary")
        }
        print(StreamReport(summary: summary, audioSeconds: input.micFile.durationSeconds, expected: options.expected,
                           hasReference: hasReference).text())
    }

    /// Pushes the files as a device does (InputAudio: the reference 50 ms ahead of the mic, 10 ms steps). Not in
    /// real time, the mic waits while it is more than ``maximumLead`` ahead of the echo-cancelled audio, so the
    /// SDK's buffers never overflow. Stops when the dialog ended.
    private static func feed(_ input: InputAudio, through nui: NeoNui, listener: StreamListener, reference: Bool, realtime: Bool) {
        let rate = Double(input.micFile.sampleRate)
        let processingRate = input.micFile.sampleRate == 8000 ? 8000.0 : 16000.0
        var pushed = 0
        // A chunk the SDK refused in part is dropped and counted by the SDK (the summary's drops), not pushed again.
        func result(_ code: NuiResultCode, _ count: Int) -> PushResult {
            let over = code == .NUI_ERR_NO_DIALOG || listener.dialog.isOver.load(ordering: .acquiring)
            return PushResult(status: over ? .notRunning : .ok, accepted: count)
        }
        func bytes(_ samples: UnsafeBufferPointer<Int16>) -> UnsafePointer<CChar>? {
            samples.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
        }
        input.feed(realtime: realtime, pushReference: { samples in
            guard reference else { return PushResult(status: .ok, accepted: samples.count) }
            let code = nui.nui_push_reference_data(bytes(samples), Len: Int32(samples.count * 2), FirstPack: false)
            return result(code, samples.count)
        }, pushMic: { samples in
            let waitStart = ContinuousClock.now
            while !realtime, !listener.dialog.isOver.load(ordering: .acquiring),
                  Double(pushed) / rate - Double(listener.dialog.processedSamples.load(ordering: .acquiring)) / processingRate > maximumLead,
                  ContinuousClock.now - waitStart < .seconds(5) {
                usleep(1000)
            }
            let code = nui.nui_update_audio_data(bytes(samples), Len: Int32(samples.count * 2), FirstPack: pushed == 0)
            pushed += samples.count
            return result(code, samples.count)
        })
    }

    private static func check(_ call: String, _ code: NuiResultCode) throws {
        guard code != .SUCCESS else { return }
        throw NuiFailure.failure(call, code)
    }
}
