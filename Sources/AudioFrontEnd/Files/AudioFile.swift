import CSndFile

/// Audio read from or written to a file through libsndfile (WAV including float and 24-bit, FLAC, Ogg, AIFF).
///
/// Not real-time safe: reading and writing allocate and do file I/O. Safe to call from any thread.
public struct AudioFile: Sendable, Equatable {
    /// Samples in [-1, 1], interleaved when ``channelCount`` > 1.
    public var samples: [Float]
    public var sampleRate: Int
    public var channelCount: Int

    public init(samples: [Float], sampleRate: Int, channelCount: Int = 1) {
        self.samples = samples
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// Frames (samples per channel).
    public var frameCount: Int { channelCount == 0 ? 0 : samples.count / channelCount }
    public var durationSeconds: Double { sampleRate == 0 ? 0 : Double(frameCount) / Double(sampleRate) }

    /// Reads a whole file. The corresponding C functions are `sf_open` and `sf_readf_float`.
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path and libsndfile's reason.
    public init(contentsOf path: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFrontEndError(.fileError, "cannot read audio file \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        var samples = [Float](repeating: 0, count: frames * channels)
        let read = samples.withUnsafeMutableBufferPointer { buffer in
            sf_readf_float(file, buffer.baseAddress, sf_count_t(frames))
        }
        samples.removeLast(samples.count - Int(read) * channels)
        self.init(samples: samples, sampleRate: Int(info.samplerate), channelCount: channels)
    }

    /// One channel (0-based) as its own mono signal.
    /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` when the channel does not exist.
    public func channel(_ index: Int) throws -> [Float] {
        guard index >= 0, index < channelCount else {
            throw AudioFrontEndError(.invalidConfiguration,
                                     "channel \(index + 1) does not exist; the file has \(channelCount) channel(s)")
        }
        if channelCount == 1 { return samples }
        return stride(from: index, to: samples.count, by: channelCount).map { samples[$0] }
    }

    /// All channels averaged into one.
    public func downmixed() -> [Float] {
        if channelCount <= 1 { return samples }
        let scale = 1 / Float(channelCount)
        return (0..<frameCount).map { frame in
            var sum: Float = 0
            for c in 0..<channelCount { sum += samples[frame * channelCount + c] }
            return sum * scale
        }
    }

    /// The file's samples as 16-bit integers (rounded, clipped), interleaved like ``samples``.
    public var int16Samples: [Int16] { SampleConversion.int16(from: samples) }

    /// Writes 16-bit PCM WAV. The corresponding C functions are `sf_open` and `sf_writef_float`.
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path and libsndfile's reason.
    public func writeWAV(to path: String) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFrontEndError(.fileError, "cannot write audio file \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        // Scale so that +1.0 does not wrap: libsndfile maps float to int16 by 32767 with clipping on.
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let written = samples.withUnsafeBufferPointer { buffer in
            sf_writef_float(file, buffer.baseAddress, sf_count_t(frameCount))
        }
        guard Int(written) == frameCount else {
            throw AudioFrontEndError(.fileError, "short write to \(path): \(written) of \(frameCount) frames")
        }
    }
}

extension AudioFile {
    /// A mono file from 16-bit samples.
    public init(int16 samples: [Int16], sampleRate: Int) {
        self.init(samples: SampleConversion.float(from: samples), sampleRate: sampleRate, channelCount: 1)
    }
}
