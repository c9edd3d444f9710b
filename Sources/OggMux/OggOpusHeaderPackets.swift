/// The two header packets of an Ogg Opus stream (RFC 7845 §5): identification (OpusHead) and comments (OpusTags).
///
/// Built once when a stream is created (``OggOpusPacker``); not real-time safe (they allocate).
package enum OggOpusHeaderPackets {
    /// The 19-byte identification header for channel mapping family 0 (mono or stereo).
    ///
    /// Layout (little-endian): "OpusHead", version 1, channel count, pre-skip (u16, 48 kHz samples),
    /// input sample rate (u32, informational), output gain (s16, Q7.8 dB), mapping family 0.
    package static func identification(channelCount: Int, preSkip: Int, inputSampleRate: Int, outputGain: Int16 = 0) -> [UInt8] {
        var bytes = Array("OpusHead".utf8)
        bytes.append(1)
        bytes.append(UInt8(channelCount))
        appendLittleEndian(UInt16(preSkip), to: &bytes)
        appendLittleEndian(UInt32(inputSampleRate), to: &bytes)
        appendLittleEndian(UInt16(bitPattern: outputGain), to: &bytes)
        bytes.append(0)
        return bytes
    }

    /// The comment header: "OpusTags", the vendor string and the user comments ("NAME=value"), each
    /// preceded by its byte length (u32, little-endian), the comments by their count.
    package static func comments(vendor: String, comments: [String]) -> [UInt8] {
        var bytes = Array("OpusTags".utf8)
        let vendorBytes = Array(vendor.utf8)
        appendLittleEndian(UInt32(vendorBytes.count), to: &bytes)
        bytes += vendorBytes
        appendLittleEndian(UInt32(comments.count), to: &bytes)
        for comment in comments {
            let commentBytes = Array(comment.utf8)
            appendLittleEndian(UInt32(commentBytes.count), to: &bytes)
            bytes += commentBytes
        }
        return bytes
    }

    private static func appendLittleEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
