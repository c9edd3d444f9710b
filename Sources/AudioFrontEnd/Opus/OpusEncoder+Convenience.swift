extension Opus.Encoder {
    /// Encodes a whole signal into packets. Allocates; not real-time safe; the encoder's thread.
    ///
    /// The end is padded with zeros until the packets cover the input plus the encoder's ``lookahead``, so
    /// that the decoded signal, with the first ``lookahead`` samples dropped, holds all of the input.
    /// - Parameter samples: interleaved samples, a whole number per channel (any count, not a whole number
    ///   of packets).
    /// - Returns: one byte array per packet.
    /// - Throws: ``AudioFrontEndError/Code/invalidFrameLength`` when `samples` is not a whole number of
    ///   samples per channel, ``AudioFrontEndError/Code/libraryFailure`` when libopus fails.
    public func encodeAll(_ samples: [Int16]) throws -> [[UInt8]] {
        var packets: [[UInt8]] = []
        try encodeAll(samples) { packet, _ in packets.append(Array(packet)) }
        return packets
    }

    /// Encodes a whole signal as ``encodeAll(_:)`` does, handing each packet to `body` with whether it is
    /// the last one. Allocates; not real-time safe.
    public func encodeAll(_ samples: [Int16], _ body: (UnsafeBufferPointer<UInt8>, _ isLast: Bool) throws -> Void) throws {
        let channels = channelCount
        guard samples.count % channels == 0 else {
            throw AudioFrontEndError(.invalidFrameLength,
                                     "\(samples.count) samples are not a whole number of \(channels)-channel frames")
        }
        let perPacket = frameLength * channels
        let needed = samples.count + lookahead * channels
        let packetCount = max(1, (needed + perPacket - 1) / perPacket)
        var frame = [Int16](repeating: 0, count: perPacket)
        var packet = [UInt8](repeating: 0, count: Opus.maximumPacketBytes)
        for index in 0..<packetCount {
            let start = index * perPacket
            let available = max(0, min(perPacket, samples.count - start))
            for i in 0..<perPacket { frame[i] = i < available ? samples[start + i] : 0 }
            let length = frame.withUnsafeBufferPointer { input in
                packet.withUnsafeMutableBufferPointer { encode(frame: input, into: $0) }
            }
            guard length > 0 else {
                throw AudioFrontEndError(.libraryFailure, "opus_encode failed on packet \(index): status \(length)",
                                         libraryStatus: Int32(clamping: length))
            }
            try packet.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<length]), index == packetCount - 1) }
        }
    }
}
