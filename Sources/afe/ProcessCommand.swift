import AudioFrontEnd
import Foundation

/// `afe process`: a thin shell over ``FrontEnd`` that runs files through it as an app would push them.
enum ProcessCommand {
    static func run(_ options: ProcessOptions) throws {
        var options = options
        let input = try InputAudio(mic: options.mic, channel: options.channel, reference: options.reference)
        let micFile = input.micFile
        input.configure(&options.configuration)
        let frontEnd = try FrontEnd(configuration: options.configuration)
        let collector = Collector()
        frontEnd.delegate = collector
        let started = Date()
        let cpuStart = clock()
        try frontEnd.start()
        let progress = Progress(total: input.mic.count, enabled: isatty(STDERR_FILENO) == 1 && micFile.durationSeconds > 5)
        input.feed(progress: progress.update, pushReference: frontEnd.pushReference(samples:), pushMic: frontEnd.pushMic(samples:))
        let summary = try frontEnd.finish()
        progress.done()
        let cpuSeconds = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
        let outputRate = options.configuration.effectiveOutputRate
        try AudioFile(int16: collector.audio, sampleRate: outputRate).writeWAV(to: options.output)
        if let path = options.opus {
            try Data(collector.oggBytes).write(to: URL(fileURLWithPath: path))
        }
        if let path = options.vadLabels {
            try collector.vadLabels(frames: (collector.audio.count + outputRate / 100 - 1) / (outputRate / 100))
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        let report = Report(options: options, mic: micFile, summary: summary, collector: collector,
                            wallSeconds: Date().timeIntervalSince(started), cpuSeconds: cpuSeconds)
        if let path = options.report { try report.json().write(to: URL(fileURLWithPath: path)) }
        print(report.text())
    }
}

/// Collects the front end's events for the files and the report (drain thread writes, main thread reads after finish).
final class Collector: FrontEndDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private(set) var audio: [Int16] = []
    private(set) var oggBytes: [UInt8] = []
    private(set) var segments: [(start: Int, end: Int?)] = []
    private(set) var telemetry: [EchoTelemetry] = []

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        lock.withLock {
            switch event {
            case .audio(let chunk): audio += chunk.samples
            case .oggPage(let page): oggBytes += page
            case .speechStarted(let ms): segments.append((ms, nil))
            case .speechEnded(let ms): if !segments.isEmpty { segments[segments.count - 1].end = ms }
            case .telemetry(let t): telemetry.append(t)
            default: break
            }
        }
    }

    /// One line per 10 ms output frame: `frame_index,0|1`.
    func vadLabels(frames: Int) -> String {
        var lines = ""
        for frame in 0..<frames {
            let ms = frame * 10
            let speech = segments.contains { ms >= $0.start && ms < ($0.end ?? Int.max) }
            lines += "\(frame),\(speech ? 1 : 0)\n"
        }
        return lines
    }
}

/// A progress bar on a terminal; nothing when output is piped.
final class Progress {
    let total: Int
    let enabled: Bool
    private var shown = -1

    init(total: Int, enabled: Bool) {
        self.total = max(1, total)
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let percent = done * 100 / total
        guard percent != shown else { return }
        shown = percent
        let bar = String(repeating: "#", count: percent / 4) + String(repeating: " ", count: 25 - percent / 4)
        FileHandle.standardError.write("\r[\(bar)] \(percent)%".data(using: .utf8)!)
    }

    func done() { if enabled { FileHandle.standardError.write("\n".data(using: .utf8)!) } }
}
