import AudioFrontEnd
import SpeechStreaming

// libFuzzer target: the Ogg/Opus paths. First byte picks the mode (modulo 4):
//   0  bytes as Opus packets into the client's Ogg muxing (libogg) and replay buffer (FramingProbe), in chunks;
//   1  the same with PCM framing;
//   2  bytes as Opus packets (a length byte before each) into Opus.Decoder: decode, conceal, recover (FEC);
//   3  bytes as packets into OggOpusWriter (channels, rate, pre-skip, paging and a comment from the first bytes),
//      and each written page's length checked against the bytes the sink got.
// Invariant checked: after draining, the framing has taken every audio byte it accepted, exactly once.
// A crash, a trap or a sanitizer report is a finding.

/// Reads the input front to back; past the end every read gives 0.
private struct Reader {
    var bytes: UnsafeBufferPointer<UInt8>
    var offset = 0
    var isEmpty: Bool { offset >= bytes.count }
    mutating func byte() -> Int {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return Int(bytes[offset])
    }
    mutating func chunk(_ count: Int) -> UnsafeBufferPointer<UInt8> {
        let n = min(count, bytes.count - offset)
        defer { offset += n }
        return UnsafeBufferPointer(rebasing: bytes[offset..<offset + n])
    }
}

private func frameInChunks(_ reader: inout Reader, format: AudioFormat) {
    var probe = FramingProbe(format: format, frameMilliseconds: 20 * (1 + reader.byte() % 10),
                             maxBytes: 256 << (reader.byte() % 8), replayCapacityBytes: 512 << (reader.byte() % 12),
                             keepsBytes: false)
    var total = 0
    while !reader.isEmpty {
        let piece = reader.chunk(1 + reader.byte() * 4)
        if probe.append(UnsafeRawBufferPointer(piece), duration48k: reader.byte() * 40) { total += piece.count }
        if reader.byte() == 0xFF { _ = probe.trimAndReplay(throughMilliseconds: reader.byte() * 1000) }
    }
    probe.append(UnsafeRawBufferPointer(start: nil, count: 0), duration48k: 0, draining: true)
    precondition(probe.audioBytes == total, "the framing took \(probe.audioBytes) of \(total) bytes")
}

private let decoders: [Opus.Decoder] = [8000, 16000, 48000].flatMap { rate in
    [1, 2].map { try! Opus.Decoder(sampleRate: rate, channelCount: $0) }
}
nonisolated(unsafe) private let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: Opus.maximumPacketDuration48kHz * 2)

private func decode(_ reader: inout Reader) {
    let decoder = decoders[reader.byte() % decoders.count]
    decoder.reset()
    while !reader.isEmpty {
        let mode = reader.byte()
        let packet = reader.chunk(reader.byte() * 4 + mode % 4)
        switch mode % 8 {
        case 0: _ = decoder.concealLoss(duration: decoder.maximumFrameLength * (mode >> 3) / 32, into: pcm)
        case 1: _ = decoder.recoverLoss(from: packet, duration: max(1, decoder.lastPacketDuration), into: pcm)
        case 2: _ = decoder.decode(packet: packet, into: UnsafeMutableBufferPointer(rebasing: pcm[0..<(mode >> 3) * 60]))
        default: _ = decoder.decode(packet: packet, into: pcm)
        }
        _ = Opus.packetDuration(packet, sampleRate: decoder.sampleRate)
    }
}

private func writeOgg(_ reader: inout Reader) {
    var configuration = OggOpusWriter.Configuration()
    configuration.paging = reader.byte() & 1 == 0 ? .pagePerPacket : .packed
    configuration.serialNumber = UInt32(reader.byte())
    configuration.comments = [String(decoding: reader.chunk(reader.byte() % 16), as: UTF8.self)]
    var pages: [UInt8] = []
    let channels = 1 + reader.byte() % 3, rate = reader.byte() << 8 | reader.byte(), preSkip = reader.byte() << 8
    guard let writer = try? OggOpusWriter(channelCount: channels, inputSampleRate: rate, preSkip: preSkip,
                                          configuration: configuration, sink: { pages += $0 }) else { return }
    while !reader.isEmpty {
        let last = reader.byte() == 0xFF
        let packet = reader.chunk(1 + reader.byte() * 2)
        if last {
            _ = writer.finish(lastPacket: packet, inputSampleCount: reader.byte() << 8)
        } else {
            _ = writer.write(packet: packet)
        }
    }
    precondition(pages.count >= 2 * 27, "the two header pages are written at creation")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOggOpus(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    var reader = Reader(bytes: UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0: frameInChunks(&reader, format: .opus)
    case 1: frameInChunks(&reader, format: .pcm)
    case 2: decode(&reader)
    default: writeOgg(&reader)
    }
    return 0
}
