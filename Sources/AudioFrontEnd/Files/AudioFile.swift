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

    /// Frames the file's header announced that the file does not hold (a truncated file, or a header that
    /// claims more than was written); 0 for a complete file. What the file holds is read all the same.
    public var missingFrames = 0

    /// Samples of the file that were not numbers (NaN or infinite; only float files can hold them), read as 0 so
    /// that nothing downstream (mixing, resampling, the DSP) sees them; 0 for a clean file.
    public var nonFiniteSamples = 0

    /// Samples of the file beyond full scale (a float file's magnitudes above 1), kept as read: converting them
    /// to 16 bits clips them. 0 for integer formats.
    public var samplesBeyondFullScale = 0

    /// Reads a whole file. The corresponding C functions are `sf_open` and `sf_readf_float`.
    ///
    /// The header's length is a claim, checked by reading: the first read goes into a buffer of the claimed size
    /// but at most ``maximumReservedSamples`` (64 MiB of floats, reserved, not touched until decoded into), so an
    /// honest file costs its decoded size once; whatever follows is decoded in chunks of ``readChunkSamples`` and
    /// joined at the end, so the memory used is at most twice the decoded audio plus one chunk, whatever the header
    /// says (a 10 kB FLAC claiming 2^36 samples reads as the second it holds). A header that claims more than the
    /// file holds sets ``missingFrames``. Samples that are not numbers are read as 0 and counted
    /// (``nonFiniteSamples``), and so are those beyond full scale (``samplesBeyondFullScale``).
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path and libsndfile's reason.
    public init(contentsOf path: String) throws {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFrontEndError(.fileError, "cannot read audio file \(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        guard channels > 0 else { throw AudioFrontEndError(.fileError, "cannot read audio file \(path): no channels") }
        let claimedFrames = info.frames > 0 && info.frames < sf_count_t.max ? Int(info.frames) : 0
        let firstFrames = max(1, min(claimedFrames, Self.maximumReservedSamples / channels))
        var samples = Self.read(file, frames: firstFrames, channels: channels)
        var chunks: [[Float]] = []
        var total = samples.count
        var full = samples.count == firstFrames * channels
        let framesPerChunk = max(1, Self.readChunkSamples / channels)
        while full {
            let chunk = Self.read(file, frames: framesPerChunk, channels: channels)
            if chunk.isEmpty { break }
            total += chunk.count
            chunks.append(chunk)
            full = chunk.count == framesPerChunk * channels
        }
        if !chunks.isEmpty {
            samples.reserveCapacity(total)
            for chunk in chunks { samples += chunk }
        }
        let counts = Self.sanitize(&samples)
        self.init(samples: samples, sampleRate: Int(info.samplerate), channelCount: channels)
        missingFrames = Self.missingFrames(file, claimed: claimedFrames, read: total / channels)
        (nonFiniteSamples, samplesBeyondFullScale) = counts
    }

    /// Sets every sample that is not a number to 0; returns how many were set and how many others lie beyond ±1.
    private static func sanitize(_ samples: inout [Float]) -> (nonFinite: Int, beyondFullScale: Int) {
        var nonFinite = 0
        var beyond = 0
        samples.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices {
                let value = buffer[index]
                if !value.isFinite {
                    buffer[index] = 0
                    nonFinite += 1
                } else if value.magnitude > 1 {
                    beyond += 1
                }
            }
        }
        return (nonFinite, beyond)
    }

    /// Samples decoded per read after the first (4 MiB of floats): the granularity of ``init(contentsOf:)``'s memory.
    public static let readChunkSamples = 1 << 20

    /// The most samples reserved from a header's claim before anything is decoded: 64 MiB of floats.
    public static let maximumReservedSamples = 1 << 24

    /// Up to `frames` frames decoded into a new array (its pages touched only as far as decoded).
    private static func read(_ file: OpaquePointer, frames: Int, channels: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: frames * channels) { buffer, count in
            count = Int(max(sf_readf_float(file, buffer.baseAddress, sf_count_t(frames)), 0)) * channels
        }
    }

    /// Frames announced but absent: libsndfile shortens a WAV/AIFF data chunk that runs past the end of the file
    /// and says so in its log ("data : CLAIMED (should be PRESENT)"); other formats (FLAC) announce a frame count
    /// that the decoder does not reach.
    private static func missingFrames(_ file: OpaquePointer, claimed: Int, read: Int) -> Int {
        if claimed > read { return claimed - read }
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(file, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("data") && line.contains("should be") {
            let numbers = line.split { !$0.isNumber }.compactMap { Int($0) }
            guard numbers.count >= 2, numbers[0] > numbers[1], read > 0, numbers[1] > 0 else { continue }
            let bytesPerFrame = max(1, numbers[1] / read)
            return (numbers[0] - numbers[1]) / bytesPerFrame
        }
        return 0
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

    /// How ``writeWAV(to:encoding:)`` stores samples.
    public enum WAVEncoding: Sendable {
        /// 16-bit PCM, rounded and clipped to full scale.
        case int16
        /// 32-bit IEEE float, every value as it is (beyond ±1, or not a number).
        case float32
    }

    /// Writes a WAV file, 16-bit PCM unless `encoding` says otherwise. The corresponding C functions are `sf_open`
    /// and `sf_writef_float`.
    /// - Throws: ``AudioFrontEndError/Code/fileError`` naming the path and libsndfile's reason.
    public func writeWAV(to path: String, encoding: WAVEncoding = .int16) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channelCount)
        info.format = Int32(SF_FORMAT_WAV) | Int32(encoding == .int16 ? SF_FORMAT_PCM_16 : SF_FORMAT_FLOAT)
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
