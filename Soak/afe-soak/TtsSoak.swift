import AllocationCounter
import AudioFrontEnd
import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS

/// Soaks the stream-input TTS SDK (`NeoNuiStreamInputTts`) as a device app uses it: its own playback through a
/// sink, pushed sample for sample as a front end's echo reference while the sink's echo reaches that front end as
/// its mic. Many answers on one instance (`tts`), one long answer (`tts-long`), or many interrupted ones
/// (`tts-bargein`, TtsSoak+BargeIn.swift).
final class TtsSoak: @unchecked Sendable { // the main thread only; the delegate and the sink are thread-safe
    let options: SoakOptions
    let events = TtsEvents()
    private let rate = 16000
    let sentences = [
        "The kitchen light is on, and the oven will be ready in ten minutes.",
        "Tomorrow brings light rain in the morning, with sunshine after noon.",
        "Your next meeting starts at half past three in the small conference room.",
        "I have added milk, eggs and two loaves of bread to the shopping list.",
        "The train to the airport leaves from platform four every fifteen minutes.",
        "Here is a short story about a fox who learned to count the stars.",
    ]

    init(_ options: SoakOptions) { self.options = options }

    private var ticket: String { #"{"url": "\#(options.url)", "apikey": "soak-key", "device_id": "soak"}"# }
    private var parameters: String {
        #"{"model": "cosyvoice-v2", "voice": "espeak-en-us", "format": "\#(options.ttsFormat)", "sample_rate": \#(rate)}"#
    }

    /// The playback's input buffer: 1 MiB (about 30 s of the answers' PCM), not the default 16 MiB, so that it has
    /// wrapped before the baselines (answer 10, the first minute): a ring's pages become resident as its indices
    /// first pass over them, which with 16 MiB reads as 240 KB of growth per answer for the first 16 MiB of audio
    /// (measured: RSS +15.2 MB from answer 10 to 80 of 100, flat after; Soak/README.md).
    static let inputCapacityBytes = 1 << 20

    /// A front end whose reference the playback feeds and whose mic the sink's echo feeds; the playback on it.
    func makeLoop(inputCapacityBytes: Int = TtsSoak.inputCapacityBytes,
                          user: [Int16] = []) throws -> (FrontEnd, EchoSink, StreamInputTtsPlayback, NeoNuiStreamInputTts) {
        var configuration = FrontEndConfiguration()
        configuration.reference = .init(sampleRate: rate)
        let frontEnd = try FrontEnd(configuration: configuration)
        frontEnd.delegate = events
        try frontEnd.start()
        let sink = EchoSink(frontEnd: frontEnd, realtime: options.realtime, user: user)
        let playback = try StreamInputTtsPlayback(
            configuration: PlaybackConfiguration(sampleRate: rate, inputCapacityBytes: inputCapacityBytes),
            reference: frontEnd, sink: sink, pacing: options.realtime ? .realTime : .sink)
        let tts = NeoNuiStreamInputTts()
        tts.setLogPrinting(false)
        tts.delegate = events
        try check("setPlayback", tts.setPlayback(playback))
        return (frontEnd, sink, playback, tts)
    }

    func check(_ call: String, _ code: NuiResultCode) throws {
        guard code == .SUCCESS else { throw SoakFailure("\(call) returned \(code.name) (\(code.rawValue))") }
    }

    func start(_ tts: NeoNuiStreamInputTts) throws {
        try check("startStreamInputTts", ticket.withCString { t in
            parameters.withCString { p in tts.startStreamInputTts(t, parameters: p, sessionId: nil, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false) }
        })
    }

    func send(_ tts: NeoNuiStreamInputTts, _ text: String) throws {
        try check("sendStreamInputTts", text.withCString { tts.sendStreamInputTts($0) })
    }

    /// One answer's end: stop (returns at synthesis complete), then playback drained and the mic re-armed.
    private func finish(_ tts: NeoNuiStreamInputTts, task: Int) throws {
        try check("stopStreamInputTts", tts.stopStreamInputTts())
        if let failure = events.failure { throw SoakFailure("task \(task): TTS_EVENT_TASK_FAILED \(failure)") }
        guard events.wait(rearmed: task, timeout: 120) else {
            throw SoakFailure("task \(task): no TTS_PLAYBACK_MIC_REARMED within 120 s (\(events.counts))")
        }
    }

    /// What every run checks at its end: the playback's and the front end's accounts.
    func close(_ frontEnd: FrontEnd, _ sink: EchoSink, _ playback: StreamInputTtsPlayback) throws -> [String] {
        playback.close()
        let summary = try frontEnd.finish()
        let counts = playback.player.counts
        var failures: [String] = []
        if summary.referenceSamplesPushed != sink.written || summary.micSamplesPushed != sink.written {
            failures.append("the sink wrote \(sink.written) samples; the front end got \(summary.referenceSamplesPushed) reference, "
                            + "\(summary.micSamplesPushed) mic")
        }
        if counts.refusedInputBytes + counts.refusedReferenceSamples + counts.droppedEvents > 0 {
            failures.append("playback drops: \(counts)")
        }
        if summary.drops != DropCounts() { failures.append("front-end drops: \(summary.drops)") }
        if events.outputSamples != summary.outputSamples {
            failures.append("\(events.outputSamples) output samples delivered of \(summary.outputSamples)")
        }
        if let failure = events.failure { failures.append("TTS_EVENT_TASK_FAILED \(failure)") }
        return failures
    }

    /// Many answers of a few seconds on one instance: each one's accounting; resident memory, threads and open
    /// files after answer 10 against the end.
    func runTasks() throws -> [String: Any] {
        let (frontEnd, sink, playback, tts) = try makeLoop()
        var failures: [String] = []
        var figures = RunFigures()
        let started = ContinuousClock.now
        for task in 1...options.dialogs {
            let bytesBefore = events.dataBytes, drainedBefore = events.drainedMilliseconds
            try start(tts)
            try send(tts, sentences[task % sentences.count])
            try send(tts, sentences[(task + 1) % sentences.count])
            try finish(tts, task: task)
            let bytes = events.dataBytes - bytesBefore, played = events.drainedMilliseconds - drainedBefore
            if bytes == 0 { failures.append("task \(task): no audio") }
            // PCM at the device's rate: the position drained is exactly the delivered samples.
            if options.ttsFormat == "pcm", Int64(bytes / 2) * 1000 / Int64(rate) != played {
                failures.append("task \(task): \(bytes) bytes delivered but \(played) ms played")
            }
            figures.sample(task - 1, of: options.dialogs)
        }
        tts.setPlayback(nil)
        failures += try close(frontEnd, sink, playback)
        failures += figures.failures(rssLimit: options.rssLimitBytes, heapLimit: options.heapLimitBytes, what: "task")
        if events.counts.complete != options.dialogs { failures.append("\(events.counts.complete) synthesis completions of \(options.dialogs)") }
        return figures.fields.merging(["tasks": options.dialogs, "audio_bytes": events.dataBytes, "played_ms": events.drainedMilliseconds,
                                       "sink_samples": sink.written,
                                       "wall_seconds": ((ContinuousClock.now - started).inSeconds * 100).rounded() / 100,
                                       "failures": failures]) { $1 }
    }

    /// One answer of `--seconds` of speech, its text streamed in while it plays (never more than 10 s of audio
    /// ahead of the device nor 3 sentences ahead of the synthesis, as text from a language model comes): resident memory and heap in use sampled every
    /// second of played audio, their growth after the first minute bounded.
    func runLong() throws -> [String: Any] {
        let (frontEnd, sink, playback, tts) = try makeLoop()
        var rss = GrowthSeries(), heap = GrowthSeries()
        let target = Int(options.seconds * 1000)
        let started = ContinuousClock.now
        try start(tts)
        var sent = 0, nextSample = 0
        // Samples memory once per second of the answer played (the sink also gets the silence before it).
        func sample() {
            let played = playback.player.playedPosition.samples * 1000 / rate
            guard played >= nextSample else { return }
            nextSample = played + 1000
            let (resident, inUse) = (Probe.residentBytes(), Int(afe_heap_usage_now().in_use))
            rss.record(resident, afterFirstMinute: played >= 60_000)
            heap.record(inUse, afterFirstMinute: played >= 60_000)
            if ProcessInfo.processInfo.environment["AFE_SOAK_TRACE"] != nil, played % 60_000 < 1000 {
                FileHandle.standardError.write(Data("minute \(played / 60_000): rss \(resident) heap \(inUse)\n".utf8))
            }
        }
        while events.audioMilliseconds(rate: rate) < target {
            if let failure = events.failure { throw SoakFailure("TTS_EVENT_TASK_FAILED after \(sent) sentences: \(failure)") }
            let played = playback.player.playedPosition.samples * 1000 / rate
            // At most 10 s of audio ahead of the device and 3 sentences not yet synthesized.
            if events.audioMilliseconds(rate: rate) - played < 10_000, sent - events.counts.sentenceEnds < 3 {
                try send(tts, sentences[sent % sentences.count])
                sent += 1
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
            sample()
        }
        try check("asyncStopStreamInputTts", tts.asyncStopStreamInputTts())
        let deadline = ContinuousClock.now + .seconds(120)
        while events.counts.rearmed == 0 && events.failure == nil { // the rest plays out
            guard ContinuousClock.now < deadline else { throw SoakFailure("not played out within 120 s (\(events.counts))") }
            Thread.sleep(forTimeInterval: 0.02)
            sample()
        }
        if let failure = events.failure { throw SoakFailure("TTS_EVENT_TASK_FAILED \(failure)") }
        tts.setPlayback(nil)
        var failures = try close(frontEnd, sink, playback)
        if rss.growth > options.rssLimitBytes { failures.append("RSS grew \(rss.growth) bytes after the first minute") }
        if afe_heap_usage_available() != 0, heap.growth > options.heapLimitBytes {
            failures.append("heap in use grew \(heap.growth) bytes after the first minute")
        }
        if options.ttsFormat == "pcm", Int64(events.dataBytes / 2) * 1000 / Int64(rate) != events.drainedMilliseconds {
            failures.append("\(events.dataBytes) bytes delivered but \(events.drainedMilliseconds) ms played")
        }
        return ["tasks": 1, "sentences_sent": sent, "audio_bytes": events.dataBytes, "played_ms": events.drainedMilliseconds,
                "sink_samples": sink.written, "rss_baseline_bytes": rss.baseline ?? 0, "rss_growth_bytes": rss.growth,
                "heap_in_use_baseline_bytes": heap.baseline ?? 0, "heap_in_use_growth_bytes": heap.growth,
                "wall_seconds": ((ContinuousClock.now - started).inSeconds * 100).rounded() / 100, "failures": failures]
    }
}
