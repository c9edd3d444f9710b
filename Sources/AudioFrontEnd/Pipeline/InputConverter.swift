/// Turns pushed interleaved int16 audio into mono at the processing rate: channel selection or down-mix,
/// then the speex resampler when the rates differ. One thread at a time (the stream's push thread, or the
/// control thread in `finish`); real-time safe after creation.
final class InputConverter {
    let channelCount: Int
    let inputRate: Int
    let outputRate: Int
    private let selection: FrontEndConfiguration.ChannelSelection
    private let resampler: SpeexResampler?
    private let mono: UnsafeMutableBufferPointer<Int16>
    /// Input frames (samples per channel) one ``convert(_:into:)`` call takes at most.
    let maximumFrames: Int
    /// Mono input samples taken so far.
    private(set) var inputCount = 0

    init(format: FrontEndConfiguration.InputFormat, outputRate: Int, name: String) throws {
        try AudioFrontEndError.check(format.channelCount, in: 1...32, "\(name) channel count")
        if case .channel(let index) = format.channelSelection {
            guard (0..<format.channelCount).contains(index) else {
                throw AudioFrontEndError(.invalidConfiguration,
                                         "\(name) channel \(index) does not exist: the \(name) has \(format.channelCount) channel(s), numbered from 0")
            }
        }
        channelCount = format.channelCount
        inputRate = format.sampleRate
        self.outputRate = outputRate
        selection = format.channelSelection
        resampler = format.sampleRate == outputRate ? nil
            : try SpeexResampler(inputRate: format.sampleRate, outputRate: outputRate)
        maximumFrames = max(1, format.sampleRate / 100)
        mono = .zeroed(capacity: maximumFrames)
    }

    deinit { mono.deallocate() }

    /// The most output samples one call can produce.
    var maximumOutput: Int {
        resampler?.maximumOutputCount(forInputCount: maximumFrames) ?? maximumFrames
    }

    /// Converts up to ``maximumFrames`` interleaved frames from `input` (a whole number of frames) into
    /// `output`, which must hold ``maximumOutput`` samples. Returns the samples written. Real-time safe.
    func convert(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        let frames = min(input.count / channelCount, maximumFrames)
        guard frames > 0 else { return 0 }
        inputCount += frames
        if channelCount == 1 {
            // Mono goes to the resampler as it is (copying it into `mono` first cost a copy per 10 ms).
            let samples = UnsafeBufferPointer(rebasing: input[0..<frames])
            if let produced = resampler?.process(samples, into: output).produced { return produced }
            _ = UnsafeMutableBufferPointer(rebasing: output[0..<frames]).update(fromContentsOf: samples)
            return frames
        }
        let target = resampler == nil ? output : mono
        switch selection {
        case .channel(let index):
            for f in 0..<frames { target[f] = input[f * channelCount + index] }
        case .downmix:
            for f in 0..<frames {
                var sum = 0
                for c in 0..<channelCount { sum += Int(input[f * channelCount + c]) }
                target[f] = Int16(sum / channelCount)
            }
        }
        return resampler?.process(UnsafeBufferPointer(rebasing: mono[0..<frames]), into: output).produced ?? frames
    }

    /// Ends the stream: writes what the resampler still owes into `output`. Returns the count.
    func flush(into output: UnsafeMutableBufferPointer<Int16>) -> Int {
        resampler?.flush(into: output) ?? 0
    }

    /// Output samples the whole stream yields: floor(input × outputRate / inputRate).
    var expectedOutputCount: Int { inputCount * outputRate / inputRate }
}
