import AudioFrontEnd
import Foundation

/// `afe process`: a thin shell over ``FrontEnd`` that runs files through it as an app would push them.
enum ProcessCommand {
    static func run(_ options: ProcessOptions) throws {
        var options = options
        let outputs = [("--output", options.output), ("--opus", options.opus), ("--vad-labels", options.vadLabels),
                       ("--report", options.report)].compactMap { name, path in path.map { (option: name, path: $0) } }
        let inputs = [("--mic", options.mic), ("--reference", options.reference)]
            .compactMap { name, path in path.map { (option: name, path: $0) } }
        try OutputFile.checkDistinct(outputs: outputs, inputs: inputs)
        for output in outputs { try OutputFile.checkWritable(output.path) }
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
        let outputRate = options.configuration.effectiveOutputRate
        let delay = frontEnd.processingDelay
        // The output lags the mic by the stages' delay: push that much silence so the last mic samples come
        // out, then drop the delay's start-up so output sample n is mic sample n.
        Self.pushSilence(micSamples: ((delay.samples + 1) * micFile.sampleRate + outputRate - 1) / outputRate,
                         into: frontEnd)
        let summary = try frontEnd.finish()
        progress.done()
        let cpuSeconds = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
        let aligned = Array(collector.audio.dropFirst(delay.samples).prefix(input.mic.count * outputRate / micFile.sampleRate))
        try AudioFile(int16: aligned, sampleRate: outputRate).writeWAV(to: options.output)
        if let path = options.opus { try OutputFile.write(Data(collector.oggBytes), to: path) }
        if let path = options.vadLabels {
            let frames = (aligned.count + outputRate / 100 - 1) / (outputRate / 100)
            try OutputFile.write(Data(collector.vadLabels(frames: frames).utf8), to: path)
        }
        let report = Report(options: options, mic: micFile, reference: input.referenceFile, summary: summary,
                            outputSamples: aligned.count, collector: collector,
                            wallSeconds: Date().timeIntervalSince(started), cpuSeconds: cpuSeconds)
        if let path = options.report { try OutputFile.write(try report.json(), to: path) }
        print(report.text())
    }

    /// Pushes `micSamples` zeros, retrying while the front end's consumer catches up.
    private static func pushSilence(micSamples: Int, into frontEnd: FrontEnd) {
        let silence = [Int16](repeating: 0, count: micSamples)
        var taken = 0
        while taken < silence.count {
            let result = silence[taken...].withUnsafeBufferPointer(frontEnd.pushMic(samples:))
            taken += result.accepted
            if result.status == .notRunning { return }
            if result.status == .bufferFull { usleep(500) }
        }
    }
}
