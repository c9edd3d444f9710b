import AudioFrontEnd
import Foundation

/// `afe process`: a thin shell over ``FrontEnd`` that runs files through it as an app would push them.
enum ProcessCommand {
    static func run(_ options: ProcessOptions) throws {
        var options = options
        for path in [options.output, options.opus, options.vadLabels, options.report].compactMap({ $0 }) {
            try OutputFile.checkWritable(path)
        }
        let micFile = try AudioFile(contentsOf: options.mic)
        guard micFile.frameCount > 0 else { throw ProcessOptions.Failure(message: "\(options.mic) holds no audio") }
        guard options.channel < micFile.channelCount else {
            throw ProcessOptions.Failure(message: "--channel \(options.channel + 1): \(options.mic) has \(micFile.channelCount) channel(s)")
        }
        let mic = SampleConversion.int16(from: try micFile.channel(options.channel))
        var reference: [Int16] = []
        options.configuration.mic = .init(sampleRate: micFile.sampleRate)
        let referenceFile = try options.reference.map { try AudioFile(contentsOf: $0) }
        if let file = referenceFile {
            reference = SampleConversion.int16(from: try file.channel(0))
            options.configuration.reference = .init(sampleRate: file.sampleRate)
        }
        let frontEnd = try FrontEnd(configuration: options.configuration)
        let collector = Collector()
        frontEnd.delegate = collector
        let started = Date()
        let cpuStart = clock()
        try frontEnd.start()
        let progress = Progress(total: mic.count, enabled: isatty(STDERR_FILENO) == 1 && micFile.durationSeconds > 5)
        let step = micFile.sampleRate / 100
        let ratio = Double(options.configuration.reference.sampleRate) / Double(micFile.sampleRate)
        // A player hands audio to the speaker before its echo reaches the mic: the reference goes 50 ms ahead,
        // so the reference resampler's look-ahead never leaves the newest positions unwritten.
        let referenceLead = micFile.sampleRate / 20
        var referenceOffset = 0
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + step)
            let referenceEnd = min(reference.count, Int((Double(end + referenceLead) * ratio).rounded()))
            if referenceEnd > referenceOffset {
                _ = reference[referenceOffset..<referenceEnd].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
                referenceOffset = referenceEnd
            }
            var taken = offset
            while taken < end {
                let result = mic[taken..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += result.accepted
                if result.status == .bufferFull { usleep(500) }
            }
            offset = end
            progress.update(offset)
        }
        let summary = try frontEnd.finish()
        progress.done()
        let cpuSeconds = Double(clock() - cpuStart) / Double(CLOCKS_PER_SEC)
        let outputRate = options.configuration.effectiveOutputRate
        try AudioFile(int16: collector.audio, sampleRate: outputRate).writeWAV(to: options.output)
        if let path = options.opus { try OutputFile.write(Data(collector.oggBytes), to: path) }
        if let path = options.vadLabels {
            let frames = (collector.audio.count + outputRate / 100 - 1) / (outputRate / 100)
            try OutputFile.write(Data(collector.vadLabels(frames: frames).utf8), to: path)
        }
        let report = Report(options: options, mic: micFile, reference: referenceFile, summary: summary, collector: collector,
                            wallSeconds: Date().timeIntervalSince(started), cpuSeconds: cpuSeconds)
        if let path = options.report { try OutputFile.write(try report.json(), to: path) }
        print(report.text())
    }
}
