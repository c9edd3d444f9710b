import AudioFrontEnd
import Foundation

/// The mic and reference files of a run, as 16-bit samples, pushed as a device would: 10 ms of reference,
/// then 10 ms of mic.
struct InputAudio {
    let micFile: AudioFile
    let mic: [Int16]
    private(set) var reference: [Int16]
    let referenceFile: AudioFile?
    /// The rate of `reference` (the reference file's, unless resampled); nil without a reference.
    private(set) var referenceRate: Int?

    init(mic path: String, channel: Int, reference referencePath: String?) throws {
        micFile = try Self.load(path)
        guard micFile.frameCount > 0 else { throw ArgumentReader.Failure(message: "\(path) holds no audio") }
        guard channel < micFile.channelCount else {
            throw ArgumentReader.Failure(message: "--channel \(channel + 1): \(path) has \(micFile.channelCount) channel(s)")
        }
        mic = SampleConversion.int16(from: try micFile.channel(channel))
        referenceFile = try referencePath.map { try Self.load($0) }
        reference = referenceFile.map { SampleConversion.int16(from: $0.downmixed()) } ?? [] // the speakers' sum
        referenceRate = referenceFile?.sampleRate
    }

    /// Reads `path`; a file shorter than its header says is processed as it is, with one warning line on
    /// standard error saying how much is missing; so is a float file holding samples that are not numbers (read
    /// as silence) or beyond full scale (clipped).
    static func load(_ path: String) throws -> AudioFile {
        let file = try AudioFile(contentsOf: path)
        if file.missingFrames > 0 {
            let missing = Double(file.missingFrames) / Double(max(file.sampleRate, 1))
            warn("\(path) is truncated: its header announces \(file.missingFrames) more frames "
                 + String(format: "(%.3f s) than it holds; processing the %.3f s it holds", missing, file.durationSeconds))
        }
        if file.nonFiniteSamples > 0 {
            warn("\(path) holds \(file.nonFiniteSamples) samples that are not numbers (NaN or infinite); processing them as silence")
        }
        if file.samplesBeyondFullScale > 0 {
            warn("\(path) holds \(file.samplesBeyondFullScale) samples beyond full scale (float magnitude above 1); clipping them")
        }
        return file
    }

    private static func warn(_ message: String) {
        FileHandle.standardError.write(Data("afe: warning: \(message)\n".utf8))
    }

    /// This input with the reference resampled to the mic's rate, for an API that takes both at one rate (NUI).
    func referenceAtMicRate() throws -> InputAudio {
        guard let referenceRate, referenceRate != micFile.sampleRate else { return self }
        var copy = self
        let converter = try SampleRateConverter(inputRate: referenceRate, outputRate: micFile.sampleRate)
        copy.reference = SampleConversion.int16(from: converter.resample(SampleConversion.float(from: reference)))
        copy.referenceRate = micFile.sampleRate
        return copy
    }

    /// Sets the front end's input formats to the files' rates.
    func configure(_ configuration: inout FrontEndConfiguration) {
        configuration.mic = .init(sampleRate: micFile.sampleRate)
        if let referenceRate { configuration.reference = .init(sampleRate: referenceRate) }
    }

    /// Pushes everything in 10 ms steps, the reference 50 ms ahead of the mic (a player hands audio to the
    /// speaker before its echo reaches the mic, so the reference resampler's look-ahead never leaves the newest
    /// positions unwritten), retrying what the front end refuses while its consumer catches up;
    /// with `realtime`, one step per 10 ms of wall-clock time. Stops early when a push finds the front end no
    /// longer running. Returns the mic samples pushed.
    @discardableResult
    func feed(realtime: Bool = false, progress: (Int) -> Void = { _ in },
              pushReference: (UnsafeBufferPointer<Int16>) -> PushResult,
              pushMic: (UnsafeBufferPointer<Int16>) -> PushResult) -> Int {
        let step = micFile.sampleRate / 100
        let ratio = Double(referenceRate ?? micFile.sampleRate) / Double(micFile.sampleRate)
        let referenceLead = micFile.sampleRate / 20
        let begin = ContinuousClock.now
        var referenceOffset = 0
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + step)
            let referenceEnd = min(reference.count, Int((Double(end + referenceLead) * ratio).rounded()))
            if referenceEnd > referenceOffset {
                _ = reference[referenceOffset..<referenceEnd].withUnsafeBufferPointer(pushReference)
                referenceOffset = referenceEnd
            }
            var taken = offset
            while taken < end {
                let result = mic[taken..<end].withUnsafeBufferPointer(pushMic)
                taken += result.accepted
                if result.status == .notRunning { return taken }
                if result.status == .bufferFull { usleep(500) }
            }
            offset = end
            progress(offset)
            if realtime {
                let due = begin + .milliseconds(offset * 1000 / micFile.sampleRate)
                let wait = due - ContinuousClock.now
                if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
            }
        }
        return offset
    }
}
