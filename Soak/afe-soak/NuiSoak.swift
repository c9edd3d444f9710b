import AudioFrontEnd
import Foundation
import NuiSDK
import Synchronization
import VoiceRecognition

/// Soaks through the NUI-compatible SDK (`NeoNui`), as a ported NUI app: one long dialog, or many short dialogs
/// on one initialized instance.
final class NuiSoak: NeoNuiSdkDelegate, @unchecked Sendable { // callbacks on the SDK's callback thread; `done` and Tally are thread-safe
    private let options: SoakOptions
    private let nui = NeoNui.get_instance()
    private let done = DispatchSemaphore(value: 0)
    private let lastCode = Atomic<Int32>(0)
    private let errors = Atomic<Int>(0)
    private var tally = Tally(sampleRate: 16000)
    private let workspace = NSTemporaryDirectory() + "afe-soak-\(getpid())"

    init(_ options: SoakOptions) { self.options = options }

    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        switch nuiEvent {
        case .EVENT_ASR_PARTIAL_RESULT: tally.partial()
        case .EVENT_SENTENCE_END:
            let (sentence, begin) = Self.sentence(asr_result.map { String(cString: $0) } ?? "")
            tally.final(sentence: sentence, beginMilliseconds: begin)
        case .EVENT_ASR_ERROR:
            errors.add(1, ordering: .relaxed)
            lastCode.store(code, ordering: .relaxed)
            done.signal()
        case .EVENT_TRANSCRIBER_COMPLETE: done.signal()
        default: break
        }
    }

    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        if nuiEvent == .EVENT_AEC_DATA { tally.audio(samples: Int(len) / 2) }
    }

    /// Sentence number and begin time of a final result's JSON (DashScope `sentence_id`/`begin_time`, NLS
    /// `index`/`begin_time`).
    private static func sentence(_ json: String) -> (Int, Int) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return (-1, -1) }
        let payload = object["payload"] as? [String: Any] ?? [:]
        let sentence = (payload["output"] as? [String: Any])?["sentence"] as? [String: Any] ?? payload
        let id = (sentence["sentence_id"] ?? sentence["index"]) as? Int ?? -1
        return (id, sentence["begin_time"] as? Int ?? -1)
    }

    private func check(_ call: String, _ code: NuiResultCode) throws {
        guard code == .SUCCESS else { throw SoakFailure("\(call) returned \(code.name) (\(code.rawValue))") }
    }

    private func initialize(sampleRate: Int) throws {
        try? FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
        nui.delegate = self
        let initJSON = try Self.json(["url": options.url, "apikey": "soak-key", "token": "soak-token", "app_key": "soak-appkey",
                                      "device_id": "soak", "service_mode": "1", "audio_update_manually": "true",
                                      "workspace": workspace])
        try check("nui_initialize", nui.nui_initialize(initJSON, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false))
        let params = try Self.json(["service_type": 4, "nls_config": ["model": "fun-asr-realtime", "sr_format": options.format,
                                                                       "sample_rate": sampleRate]])
        try check("nui_set_params", nui.nui_set_params(params))
    }

    /// One dialog: play_start, both streams pushed (paced by EVENT_AEC_DATA), play_over, cancel(NO), complete.
    private func dialog(_ audio: SoakAudio) throws -> RecognitionSummary {
        tally = Tally(sampleRate: 16000)
        try check("nui_dialog_start", nui.nui_dialog_start(.MODE_P2T, dialogParam: "{}"))
        _ = nui.nui_dialog_action(#"{"type":"action","command":"play_start"}"#)
        let pusher = Pusher(mic: { [nui] samples in Self.push(samples) { nui.nui_update_audio_data($0, Len: $1, FirstPack: false) } },
                            reference: { [nui] samples in Self.push(samples) { nui.nui_push_reference_data($0, Len: $1, FirstPack: false) } })
        pusher.run(audio, realtime: options.realtime, processed: tally.processedSamples)
        _ = nui.nui_dialog_action(#"{"type":"action","command":"play_over"}"#)
        try check("nui_dialog_cancel", nui.nui_dialog_cancel(false))
        guard done.wait(timeout: .now() + 120) == .success else { throw SoakFailure("no EVENT_TRANSCRIBER_COMPLETE within 120 s") }
        guard errors.load(ordering: .relaxed) == 0 else {
            throw SoakFailure("EVENT_ASR_ERROR with code \(lastCode.load(ordering: .relaxed))")
        }
        guard let summary = nui.nui_get_dialog_summary() else { throw SoakFailure("nui_get_dialog_summary returned nil") }
        return summary
    }

    private static func push(_ samples: UnsafeBufferPointer<Int16>, _ call: (UnsafePointer<CChar>?, Int32) -> NuiResultCode) -> PushResult {
        let bytes = UnsafeRawPointer(samples.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }
        let code = call(bytes, Int32(samples.count * 2))
        switch code {
        case .SUCCESS: return PushResult(status: .ok, accepted: samples.count)
        case .NUI_ERR_AUDIO_BUFFER_FULL: return PushResult(status: .bufferFull, accepted: samples.count) // the SDK counted the drop
        default: return PushResult(status: .notRunning, accepted: 0)
        }
    }

    /// One long dialog with every check of the soak.
    func runLong() throws -> [String: Any] {
        let audio = try SoakAudio(mic: options.mic, reference: options.reference, seconds: options.seconds)
        try initialize(sampleRate: audio.sampleRate)
        defer { _ = nui.nui_release(); try? FileManager.default.removeItem(atPath: workspace) }
        let started = ContinuousClock.now
        let summary = try dialog(audio)
        var (fields, failures) = tally.report(limitBytes: options.rssLimitBytes, heapLimitBytes: options.heapLimitBytes, seconds: audio.seconds)
        failures += Accounting.check(summary: summary, samples: audio.mic.count, micRate: audio.sampleRate,
                                     format: options.audioFormat, finals: tally.finalCount)
        fields.merge(Accounting.fields(summary: summary, elapsed: ContinuousClock.now - started, seconds: audio.seconds)) { $1 }
        fields["failures"] = failures
        return fields
    }

    /// Many short dialogs on one instance: resident memory, threads and open files sampled after each.
    func runDialogs() throws -> [String: Any] {
        let audio = try SoakAudio(mic: options.mic, reference: options.reference, seconds: options.dialogSeconds)
        try initialize(sampleRate: audio.sampleRate)
        defer { _ = nui.nui_release(); try? FileManager.default.removeItem(atPath: workspace) }
        var failures: [String] = []
        var resident: [Int] = [], threads: [Int] = [], files: [Int] = []
        var startTimes: [Double] = [] // start() → task started, ms: the first dialog connects, the others reuse
        let started = ContinuousClock.now
        for number in 1...options.dialogs {
            let summary = try dialog(audio)
            if let time = summary.timeToStart { startTimes.append(time.inSeconds * 1000) }
            let problems = Accounting.check(summary: summary, samples: audio.mic.count, micRate: audio.sampleRate,
                                            format: options.audioFormat, finals: tally.finalCount)
            if !problems.isEmpty { failures.append("dialog \(number): " + problems.joined(separator: "; ")) }
            if number == 10 || number == options.dialogs { settle() }
            resident.append(Probe.residentBytes())
            threads.append(Probe.threadCount())
            files.append(Probe.openFileCount())
            if ProcessInfo.processInfo.environment["AFE_SOAK_TRACE"] != nil, number % 20 == 0 {
                FileHandle.standardError.write(Data("dialog \(number): rss \(resident.last!) threads \(threads.last!) fds \(files.last!)\n".utf8))
            }
        }
        // Dialog 10 is the baseline: the first dialogs fill caches (TLS store, allocator arenas, thread pools).
        // Baseline and end are sampled after the dialog's background clean-up (settle()); threads are ours only
        // (libdispatch's workers come and go with load, see Probe.threadCount).
        let base = min(9, resident.count - 1)
        let growth = resident.last! - resident[base]
        if growth > options.rssLimitBytes { failures.append("RSS grew \(growth) bytes from dialog \(base + 1) to the end") }
        if threads.last! > threads[base] { failures.append("threads \(threads[base]) → \(threads.last!)") }
        if files.last! > files[base] { failures.append("open files \(files[base]) → \(files.last!)") }
        return ["dialogs": options.dialogs, "rss_first_bytes": resident[0], "rss_baseline_bytes": resident[base],
                "rss_last_bytes": resident.last!, "rss_growth_bytes": growth, "rss_peak_bytes": resident.max()!, "threads_baseline": threads[base],
                "threads_last": threads.last!, "threads_peak": threads.max()!, "fds_baseline": files[base],
                "fds_last": files.last!, "wall_seconds": ((ContinuousClock.now - started).inSeconds * 100).rounded() / 100,
                "time_to_start_first_ms": startTimes.first.map { ($0 * 100).rounded() / 100 } ?? -1,
                "time_to_start_median_ms": Self.median(startTimes.dropFirst()),
                "failures": failures]
    }

    private static func median(_ values: ArraySlice<Double>) -> Double {
        guard !values.isEmpty else { return -1 }
        return (values.sorted()[values.count / 2] * 100).rounded() / 100
    }

    /// Lets the last dialog's background clean-up finish (its core is released 0.1 s after the end).
    private func settle() { Thread.sleep(forTimeInterval: 0.5) }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
