import AudioFrontEnd

/// The `pcm` format: raw 16-bit little-endian mono at the task's rate. Bytes split anywhere (an odd byte is
/// kept for the next piece). See ``SynthesisStreamDecoder`` for the contract; no call allocates.
public final class PCMStreamDecoder: SynthesisStreamDecoder {
    public let format = SynthesisAudioFormat.pcm
    public let sampleRate: Int?
    public private(set) var counts = DecodeCounts()
    public private(set) var samplesDecoded = 0
    private var unpacker = PCM16Unpacker(channelCount: 1)
    private var finished = false

    /// - Throws: ``PlaybackDecodeError/Code/unsupportedFormat`` unless 8000...48000 Hz.
    public init(sampleRate: Int) throws(PlaybackDecodeError) {
        guard SampleRates.supported.contains(sampleRate) else {
            throw PlaybackDecodeError(.unsupportedFormat, "pcm playback takes 8000...48000 Hz, not \(sampleRate) Hz")
        }
        self.sampleRate = sampleRate
    }

    deinit { unpacker.deallocate() }

    public func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !finished else { throw refused() }
        samplesDecoded += unpacker.unpack(bytes, output: output)
    }

    public func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !finished else { throw refused() }
        finished = true
        if unpacker.carried > 0 {
            counts.errors += 1
            throw PlaybackDecodeError(.truncated, "the pcm stream ended inside a sample (an odd byte count)")
        }
    }

    private func refused() -> PlaybackDecodeError {
        PlaybackDecodeError(.invalidState, "the pcm stream already finished")
    }
}
