#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension OggOpusWriter.Configuration {
    /// The settings for a file: libogg packs pages (``OggOpusWriter/Paging/packed``), everything else default.
    public static var file: Self {
        var configuration = Self()
        configuration.paging = .packed
        return configuration
    }
}

extension OggOpusWriter {
    /// Encodes a whole signal into a complete Ogg Opus stream in memory. Allocates; not real-time safe.
    ///
    /// The stream is end-trimmed to exactly `samples` (a player decodes `samples.count / channelCount`
    /// samples per channel at the input rate).
    /// - Parameters:
    ///   - samples: interleaved samples at `encoder.sampleRate`.
    ///   - encoder: the encoder settings. - configuration: the writer settings (default ``Configuration/file``).
    /// - Throws: ``AudioFrontEndError`` for bad settings or a libopus failure.
    public static func encode(_ samples: [Int16], encoder: Opus.Encoder.Configuration = .init(),
                              configuration: Configuration = .file) throws -> [UInt8] {
        var bytes: [UInt8] = []
        let opus = try Opus.Encoder(configuration: encoder)
        let writer = try OggOpusWriter(encoder: opus, configuration: configuration) { bytes += $0 }
        let inputSampleCount = samples.count / encoder.channelCount
        try opus.encodeAll(samples) { packet, isLast in
            let status = isLast ? writer.finish(lastPacket: packet, inputSampleCount: inputSampleCount)
                                : writer.write(packet: packet)
            guard status.isOK else {
                throw AudioFrontEndError(.libraryFailure, "the Ogg Opus writer refused a packet: \(status)",
                                         libraryStatus: status.code)
            }
        }
        return bytes
    }

    /// Encodes a whole signal into an Ogg Opus file at `path` (see ``encode(_:encoder:configuration:)``).
    /// Allocates and does file I/O; not real-time safe.
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path when it cannot be written.
    public static func write(_ samples: [Int16], to path: String, encoder: Opus.Encoder.Configuration = .init(),
                             configuration: Configuration = .file) throws {
        try writeFile(encode(samples, encoder: encoder, configuration: configuration), to: path)
    }

    /// Writes `bytes` to the file at `path`, replacing it. Not real-time safe.
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path and the system's reason.
    public static func writeFile(_ bytes: [UInt8], to path: String) throws {
        guard let file = fopen(path, "wb") else {
            throw AudioFrontEndError(.fileError, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        let closed = fclose(file)
        guard written == bytes.count, closed == 0 else {
            throw AudioFrontEndError(.fileError, "short write to \(path): \(written) of \(bytes.count) bytes")
        }
    }
}
