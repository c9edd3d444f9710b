extension Opus.Decoder {
    /// Decodes a sequence of packets into one signal; `nil` stands for a lost packet, concealed with the
    /// duration of the packet before it (PLC). Allocates; not real-time safe; the decoder's thread.
    /// - Returns: interleaved samples, including the encoder's lookahead at the start.
    /// - Throws: ``AudioFrontEndError/Code/libraryFailure`` naming the packet libopus rejected.
    public func decodeAll(_ packets: [[UInt8]?]) throws -> [Int16] {
        var output: [Int16] = []
        var pcm = [Int16](repeating: 0, count: maximumFrameLength * channelCount)
        var lastDuration = 960 * sampleRate / Opus.granuleRate
        for (index, packet) in packets.enumerated() {
            let count = pcm.withUnsafeMutableBufferPointer { buffer in
                if let packet {
                    return packet.withUnsafeBufferPointer { decode(packet: $0, into: buffer) }
                }
                return concealLoss(duration: lastDuration, into: buffer)
            }
            guard count >= 0 else {
                throw AudioFrontEndError(.libraryFailure, "opus_decode failed on packet \(index): \(Opus.errorDescription(Int32(clamping: count)))",
                                         libraryStatus: Int32(clamping: count))
            }
            if count > 0 { lastDuration = count }
            output += pcm[0..<(count * channelCount)]
        }
        return output
    }

    /// Decodes packets none of which is lost. Allocates; not real-time safe.
    public func decodeAll(_ packets: [[UInt8]]) throws -> [Int16] {
        try decodeAll(packets.map { Optional($0) })
    }
}
