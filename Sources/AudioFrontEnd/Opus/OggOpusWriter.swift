import OggMux

/// Writes an Ogg Opus stream (RFC 7845) page by page into a caller-given sink, through libogg: a thin public layer
/// over the package's one muxer (`OggOpusPacker`, module OggMux), which the streaming client's socket path uses too.
///
/// The stream: an OpusHead page (beginning of stream), an OpusTags page, then audio pages whose granule
/// position counts 48 kHz samples including the pre-skip, and a last page with the end-of-stream flag whose
/// granule position is trimmed to the real input length (end trimming, RFC 7845 §4.4).
///
/// Lifecycle: create (allocates, writes the two header pages into the sink, may throw) →
/// ``write(packet:)`` per packet (real-time safe) → ``finish(lastPacket:inputSampleCount:)`` → deinit.
/// One thread at a time, which is also the thread the sink runs on (the class owns libogg's stream state;
/// that invariant is why it is `@unchecked Sendable`).
///
/// Real-time safety: libogg allocates its buffers (16 KB body, 1024 lacing values) in `ogg_stream_init`;
/// packets of at most ``Opus/maximumPacketBytes`` never make it grow, and each page is copied into a scratch
/// buffer sized at creation, so writing allocates nothing as long as the sink does not.
public final class OggOpusWriter: @unchecked Sendable {
    /// Receives each finished page, header and body in one contiguous buffer valid only during the call.
    public typealias PageSink = (UnsafeRawBufferPointer) -> Void

    /// The Ogg bitstream serial number of the stream.
    public let serialNumber: UInt32
    /// The pre-skip recorded in OpusHead: samples at 48 kHz that a player drops at the start.
    public let preSkip: Int
    /// The input sample rate recorded in OpusHead, also the rate ``finish(lastPacket:inputSampleCount:)`` counts in.
    public let inputSampleRate: Int
    public let channelCount: Int
    public let configuration: Configuration

    /// 48 kHz samples in all audio packets written so far (the granule position of the last packet).
    public var granulePosition: Int64 { packer.granulePosition }
    /// Pages emitted into the sink so far, header pages included.
    public var pageCount: Int { packer.pageCount }
    /// Whether ``finish(lastPacket:inputSampleCount:)`` has ended the stream.
    public private(set) var isFinished = false

    private let sink: PageSink
    private let packer: OggOpusPacker

    /// Creates the stream and writes its OpusHead and OpusTags pages into `sink`. Allocates; not real-time safe.
    ///
    /// The corresponding C functions are `ogg_stream_init`, `ogg_stream_packetin` and `ogg_stream_flush`.
    /// - Parameters:
    ///   - channelCount: 1 or 2 (channel mapping family 0).
    ///   - inputSampleRate: the rate the audio was encoded from, recorded in OpusHead.
    ///   - preSkip: the encoder's lookahead at 48 kHz (``Opus/Encoder/preSkip``), 0...65535.
    ///   - sink: receives every page, on the calling thread.
    /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` naming the bad value,
    ///   ``AudioFrontEndError/Code/libraryFailure`` when libogg fails.
    public init(channelCount: Int, inputSampleRate: Int, preSkip: Int,
                configuration: Configuration = Configuration(), sink: @escaping PageSink) throws {
        try Opus.checkChannelCount(channelCount, for: "An Ogg Opus stream with channel mapping family 0")
        try AudioFrontEndError.check(preSkip, in: 0...65535, "Ogg Opus pre-skip (48 kHz samples)")
        try AudioFrontEndError.check(inputSampleRate, in: 1...Int(Int32.max), "Ogg Opus input sample rate (Hz)")
        try configuration.validate()
        self.channelCount = channelCount
        self.inputSampleRate = inputSampleRate
        self.preSkip = preSkip
        self.configuration = configuration
        self.serialNumber = configuration.serialNumber ?? UInt32.random(in: 0...UInt32.max)
        self.sink = sink
        let head = OggOpusHeaderPackets.identification(channelCount: channelCount, preSkip: preSkip,
                                                       inputSampleRate: inputSampleRate)
        let tags = OggOpusHeaderPackets.comments(vendor: configuration.vendor, comments: configuration.comments)
        guard let packer = OggOpusPacker(serialNumber: serialNumber, head: head, tags: tags) else {
            throw AudioFrontEndError(.libraryFailure, "ogg_stream_init failed")
        }
        self.packer = packer
        packer.start(into: sink)
    }

    /// A writer for what `encoder` produces: its channel count, sample rate and pre-skip.
    public convenience init(encoder: Opus.Encoder, configuration: Configuration = Configuration(),
                            sink: @escaping PageSink) throws {
        try self.init(channelCount: encoder.channelCount, inputSampleRate: encoder.sampleRate,
                      preSkip: encoder.preSkip, configuration: configuration, sink: sink)
    }

    /// Appends one Opus packet; with ``Paging/pagePerPacket`` its page reaches the sink before this returns.
    /// Real-time safe (no allocation, no locks) when the sink is; the writer's thread.
    ///
    /// The packet's duration comes from its table-of-contents byte, so DTX packets (1–2 bytes) count too.
    /// The corresponding C functions are `ogg_stream_packetin` and `ogg_stream_flush` or `ogg_stream_pageout`.
    /// - Returns: ``StageStatus/ok``, ``StageStatus/invalidPacket`` for bytes that are not an Opus packet (or
    ///   longer than ``Opus/maximumPacketBytes``), ``StageStatus/streamFinished`` after the end of stream.
    @discardableResult
    public func write(packet: UnsafeBufferPointer<UInt8>) -> StageStatus {
        guard !isFinished else { return .streamFinished }
        let duration = Opus.packetDuration(packet)
        guard duration > 0, packet.count <= Opus.maximumPacketBytes else { return .invalidPacket }
        packer.append(packet: UnsafeRawBufferPointer(packet), granuleAdvance: Int64(duration),
                      flush: configuration.paging == .pagePerPacket, into: sink)
        return .ok
    }

    /// Appends the last packet with the end-of-stream flag, trims the stream to the real input length, and
    /// emits every page still held. Real-time safe when the sink is.
    ///
    /// The final granule position is pre-skip + `inputSampleCount` at 48 kHz (rounded up), so a player
    /// drops the padding the encoder needed past the end (RFC 7845 §4.4). It is clamped to what the packets
    /// hold, and trims at most this last packet (the RFC forbids trimming past the previous page): to keep all the input, encode at least
    /// ``Opus/Encoder/lookahead`` samples (zeros) past the end of the input before the last packet.
    /// - Parameters:
    ///   - lastPacket: the stream's final Opus packet.
    ///   - inputSampleCount: samples per channel of real input, at ``inputSampleRate``, over the whole stream.
    /// - Returns: as ``write(packet:)``.
    @discardableResult
    public func finish(lastPacket: UnsafeBufferPointer<UInt8>, inputSampleCount: Int) -> StageStatus {
        guard !isFinished else { return .streamFinished }
        let duration = Opus.packetDuration(lastPacket)
        guard duration > 0, lastPacket.count <= Opus.maximumPacketBytes else { return .invalidPacket }
        let rate = Int64(inputSampleRate)
        let input48k = (Int64(max(0, inputSampleCount)) * Int64(Opus.granuleRate) + rate - 1) / rate
        packer.append(packet: UnsafeRawBufferPointer(lastPacket), granuleAdvance: Int64(duration),
                      trimmedGranule: Int64(preSkip) + input48k, end: true, flush: true, into: sink)
        isFinished = true
        return .ok
    }
}
