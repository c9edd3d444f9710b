import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS
import SpeechStreaming
import Synchronization

/// `afe converse`: the whole loop of a voice device, offline (see ``ConverseOptions/usage``).
enum ConverseCommand {
    static func run(_ options: ConverseOptions) throws {
        let rate = options.rate
        let user = try ConverseInputs.user(options, rate: rate)
        let impulse = try ConverseInputs.impulse(options, rate: rate)
        var room = ConverseRoom(impulse: impulse, delaySamples: options.echoDelayMilliseconds * rate / 1000,
                                gainDecibels: options.echoGainDecibels, noiseDecibels: options.noiseDecibels, seed: options.seed)
        let environment = ProcessInfo.processInfo.environment
        guard let key = environment["DASHSCOPE_API_KEY"].flatMap({ $0.isEmpty ? nil : $0 }) ?? (options.isLoopback ? "local" : nil) else {
            throw RunFailure(message: "set DASHSCOPE_API_KEY in the environment (the key is never taken from an argument)")
        }
        let listener = ConverseListener(rate: rate, quiet: options.quiet)
        let workspace = FileManager.default.temporaryDirectory.appendingPathComponent("afe-converse-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workspace) }

        // The recognizer: NeoNui as a ported NUI app runs it (AEC on: the playback pushes the reference).
        let nui = NeoNui.get_instance()
        nui.delegate = listener
        try check("nui_initialize", nui.nui_initialize(try json(["url": options.url, "apikey": key, "service_mode": "1",
                                                                "device_id": "afe-converse", "audio_update_manually": true,
                                                                "workspace": workspace]),
                                                      logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false))
        defer { nui.nui_release() }
        try check("nui_set_params", nui.nui_set_params(try json([
            "service_type": 4, "enable_aec": true, "enable_vad": true,
            "nls_config": ["sr_format": "pcm", "sample_rate": rate, "model": "fun-asr-realtime",
                           // Offline the audio clock runs ahead of the recognizer (PocketSphinx on a loaded machine
                           // decodes at about real time): the final may come well after the last push.
                           "finish_timeout": 60_000]])))

        // The synthesizer with local playback in the render shape: the loop is the device's render callback.
        // NeoNui is the playback's echo reference: every sample handed to the device goes to its front end, with
        // play_start / play_over around each answer, so the app pushes no reference.
        let playback = try StreamInputTtsPlayback(configuration: PlaybackConfiguration(sampleRate: rate), reference: nui)
        defer { playback.close() }
        let tts = NeoNuiStreamInputTts()
        tts.delegate = listener
        tts.setPlayback(playback)
        if options.bargeIn {
            // The SDK stops the answer on the recognizer's own front end's decision; the tap notes when it came.
            try check("enableBargeIn", tts.enableBargeIn(true, source: TappedBargeInSource(nui, tap: listener.decided)))
        }

        let redactor = Redactor(secrets: [key] + Redactor.secrets(inURL: options.url))
        let redacted = redactor.redact(url: options.url)
        if !options.quiet {
            print("afe converse: answer \"\(options.answer.prefix(60))\(options.answer.count > 60 ? "…" : "")\" "
                  + (options.playback ? "(\(options.voice), \(options.format))" : "(not played: --no-playback)")
                  + String(format: "; user %.2f s of %@ from %.2f s; room %@, echo %+.0f dB at %d ms; noise %.0f dBFS; %@ clock; %@",
                           Double(user.samples.count) / Double(rate), options.user, options.userAt,
                           options.impulseResponse ?? String(format: "RT60 %.2f s (synthetic, seed %llu)", options.rt60, options.seed),
                           options.echoGainDecibels, options.echoDelayMilliseconds, options.noiseDecibels,
                           options.realtime ? "real-time" : "offline", redacted))
        }
        try check("nui_dialog_start", nui.nui_dialog_start(.MODE_P2T, dialogParam: ""))
        if options.playback {
            try startAnswer(tts, options: options, key: key, listener: listener)
        }
        let loop = ConverseLoop(options: options, playback: playback, listener: listener, nui: nui, user: user)
        let result = loop.run(room: &room)
        listener.clockStopped()
        nui.nui_dialog_cancel(false)
        let completed = listener.waitForEnd(timeout: .seconds(70))
        if result.stoppedSample != nil { listener.waitForInterruption(timeout: .seconds(2)) }
        tts.cancelStreamInputTts()
        if let failure = listener.dialog.failure { throw failure }
        guard completed else { throw RunFailure(message: "converse: the recognizer did not complete within 70 s of the end of audio") }
        if let failure = listener.lock.withLock({ listener.synthesisFailure }) {
            throw RunFailure(message: "converse: the speech synthesis failed: \(redactor.redact(failure))")
        }
        let summary = nui.nui_get_dialog_summary()
        let report = ConverseReport(options: options, user: user, loop: result, listener: listener, summary: summary)
        print(report.text())
        if let path = options.report { try report.write(json: path) }
        if let path = options.micOutput { try ConverseInputs.write(result.mic, rate: rate, to: path) }
    }

    /// Starts the answer's task and sends the text as a language model streams it (a few words per
    /// continue-task), then finish-task without waiting.
    private static func startAnswer(_ tts: NeoNuiStreamInputTts, options: ConverseOptions, key: String,
                                    listener: ConverseListener) throws {
        let ticket = try json(["url": options.url, "apikey": key, "device_id": "afe-converse"])
        let parameters = try json(["model": "cosyvoice-v2", "voice": options.voice, "format": options.format,
                                   "sample_rate": options.rate])
        listener.wall.withLock { $0.started = .now }
        let code = tts.startStreamInputTts(ticket, parameters: parameters, sessionId: nil, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false)
        guard code == .SUCCESS else { throw NuiFailure.failure("startStreamInputTts", code) }
        var piece = ""
        for word in options.answer.split(separator: " ", omittingEmptySubsequences: false) {
            piece += word + " "
            if piece.count >= 24 {
                if listener.wall.withLock({ $0.firstText == nil }) { listener.wall.withLock { $0.firstText = .now } }
                _ = tts.sendStreamInputTts(piece)
                piece = ""
            }
        }
        if !piece.isEmpty {
            if listener.wall.withLock({ $0.firstText == nil }) { listener.wall.withLock { $0.firstText = .now } }
            _ = tts.sendStreamInputTts(piece)
        }
        _ = tts.asyncStopStreamInputTts()
    }

    static func check(_ call: String, _ code: NuiResultCode) throws {
        guard code != .SUCCESS else { return }
        throw NuiFailure.failure(call, code)
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}

/// A barge-in source that tells `tap` about each decision before the SDK acts on it (to time it), then passes it on.
final class TappedBargeInSource: BargeInSource, @unchecked Sendable { // immutable
    let source: any BargeInSource
    let tap: @Sendable (BargeInDecision) -> Void
    init(_ source: any BargeInSource, tap: @escaping @Sendable (BargeInDecision) -> Void) {
        self.source = source
        self.tap = tap
    }

    func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?) {
        guard let handler else { source.setBargeInHandler(nil); return }
        let tap = tap
        source.setBargeInHandler { decision in
            tap(decision)
            handler(decision)
        }
    }
}
