/// A decoder that takes a synthesis stream's bytes as they arrive, in pieces of any size, and hands out mono
/// 16-bit PCM at the stream's own rate.
///
/// Lifecycle: create → ``decode(_:output:)`` for each piece of bytes → ``finish(output:)`` once at the end.
/// After an error is thrown the decoder refuses further input with ``PlaybackDecodeError/Code/invalidState``.
/// Hostile input never traps: every claim is checked before memory is committed, damage that can be stepped
/// over is counted in ``counts``, the rest is thrown.
///
/// Threading: one thread at a time (the decoding thread). Not real-time safe in general: creating the codec and
/// the resampler when the header arrives allocates; after the first two pieces no call allocates (measured by
/// `DecoderAllocationTests` and `Benchmarks/playback.sh cost`).
public protocol SynthesisStreamDecoder: AnyObject {
    /// The format decoded.
    var format: SynthesisAudioFormat { get }
    /// The rate of the PCM handed out, Hz; nil until the header said (pcm knows it from the start).
    var sampleRate: Int? { get }
    /// What was stepped over so far.
    var counts: DecodeCounts { get }
    /// Mono samples handed out so far.
    var samplesDecoded: Int { get }

    /// Decodes `bytes` (the next piece of the stream) and calls `output` with each run of mono samples at
    /// ``sampleRate``; the buffer is valid only during the call.
    /// - Throws: ``PlaybackDecodeError`` for what ends the stream.
    func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError)

    /// Ends the stream: hands out what is still held, and checks that the stream was complete.
    /// - Throws: ``PlaybackDecodeError/Code/truncated`` when the stream stopped inside a header, a page or a
    ///   claimed data length (everything decodable was handed out first).
    func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError)
}

extension SynthesisAudioFormat {
    /// A new decoder for this format. Allocates; not real-time safe.
    /// - Parameter sampleRate: the task's `sample_rate`: the rate of `pcm` streams (the other formats carry
    ///   their own rate in their header).
    /// - Throws: ``PlaybackDecodeError/Code/unsupportedFormat`` for a pcm rate outside 8000...48000 Hz.
    public func makeDecoder(sampleRate: Int) throws(PlaybackDecodeError) -> any SynthesisStreamDecoder {
        switch self {
        case .pcm: try PCMStreamDecoder(sampleRate: sampleRate)
        case .wav: WAVStreamDecoder()
        case .mp3: try MP3StreamDecoder()
        case .opus: OggOpusStreamDecoder(preferredSampleRate: sampleRate)
        }
    }
}
