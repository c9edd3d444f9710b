import AudioFrontEnd

/// The fields of an OpusHead identification header (RFC 7845 §5.1) this player uses.
struct OpusHead: Equatable {
    var channelCount: Int
    /// Samples at 48 kHz to drop from the start of the decoded stream.
    var preSkip: Int
    /// Output gain, Q7.8 dB.
    var outputGain: Int16

    /// Parses `packet`. Only channel mapping family 0 (mono, stereo) is played.
    /// - Throws: ``PlaybackDecodeError`` (`malformedHeader`, `unsupportedFormat`).
    init(_ packet: UnsafeBufferPointer<UInt8>) throws(PlaybackDecodeError) {
        guard packet.count >= 19, Self.hasMagic(packet, "OpusHead") else {
            throw PlaybackDecodeError(.malformedHeader, "the first Ogg packet is not an OpusHead header (\(packet.count) bytes)")
        }
        let version = packet[8]
        guard version >> 4 == 0 else {
            throw PlaybackDecodeError(.unsupportedFormat, "OpusHead version \(version) (only major version 0 is defined)")
        }
        let channels = Int(packet[9])
        let family = packet[18]
        guard family == 0, (1...2).contains(channels) else {
            throw PlaybackDecodeError(.unsupportedFormat,
                                      "Opus playback takes mapping family 0 with 1 or 2 channels, not family \(family) with \(channels)")
        }
        channelCount = channels
        preSkip = Int(UInt16(packet[10]) | UInt16(packet[11]) << 8)
        outputGain = Int16(bitPattern: UInt16(packet[16]) | UInt16(packet[17]) << 8)
    }

    /// Throws unless `packet` is an OpusTags header whose vendor string fits inside it (RFC 7845 §5.2).
    static func checkTags(_ packet: UnsafeBufferPointer<UInt8>) throws(PlaybackDecodeError) {
        guard packet.count >= 16, hasMagic(packet, "OpusTags") else {
            throw PlaybackDecodeError(.malformedHeader, "the second Ogg packet is not an OpusTags header (\(packet.count) bytes)")
        }
        let vendor = Int(UInt32(packet[8]) | UInt32(packet[9]) << 8 | UInt32(packet[10]) << 16 | UInt32(packet[11]) << 24)
        guard vendor <= packet.count - 16 else {
            throw PlaybackDecodeError(.malformedHeader, "the OpusTags vendor string claims \(vendor) bytes of a \(packet.count)-byte packet")
        }
    }

    static func hasMagic(_ packet: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        guard packet.count >= expected.count else { return false }
        for i in 0..<expected.count where packet[i] != expected[i] { return false }
        return true
    }
}
