import AudioFrontEnd

/// The `wav` format: a RIFF/WAVE header (in the first binary frame, but parsed whatever the split), then 16-bit
/// PCM of 1–8 channels, averaged to mono. See ``SynthesisStreamDecoder`` for the contract.
///
/// Every header claim is checked before it is acted on, and none commits memory: the header is read into a
/// fixed 64-byte buffer, unknown chunks are skipped by counting (at most ``maximumSkippedHeaderBytes``), and the
/// data chunk's length bounds what is played. A data length of 0 or ≥ 0x7FFF0000 is the placeholder streaming
/// writers use and means "until the end"; any other length that the stream does not reach is
/// ``PlaybackDecodeError/Code/truncated`` at ``finish(output:)``. Bytes after the data chunk are skipped and
/// counted. Steady state allocates nothing.
public final class WAVStreamDecoder: SynthesisStreamDecoder {
    public let format = SynthesisAudioFormat.wav
    public private(set) var sampleRate: Int?
    public private(set) var channelCount: Int?
    public private(set) var counts = DecodeCounts()
    public private(set) var samplesDecoded = 0

    /// The most bytes of chunks other than `fmt ` and `data` skipped before the data (LIST, fact, …): 1 MiB.
    public static let maximumSkippedHeaderBytes = 1 << 20
    /// The largest `fmt ` chunk taken (WAVE_FORMAT_EXTENSIBLE needs 40).
    static let maximumFormatChunkBytes = 64

    private enum State {
        case riff, chunkHeader, format(size: Int), skip(remaining: Int), data(remaining: Int?), trailing, done
    }

    private var state = State.riff
    private var header = [UInt8](repeating: 0, count: 64)
    private var headerFill = 0
    private var skippedHeader = 0
    private var unpacker: PCM16Unpacker?

    public init() {}

    deinit { unpacker?.deallocate() }

    public func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        var offset = 0
        do throws(PlaybackDecodeError) {
            while offset < bytes.count {
                offset += try step(UnsafeRawBufferPointer(rebasing: bytes[offset...]), output: output)
            }
        } catch {
            fail()
            throw error
        }
    }

    public func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        let ending = state
        fail()
        switch ending {
        case .done: throw PlaybackDecodeError(.invalidState, "the wav stream already finished or failed")
        case .data(let remaining):
            if let remaining, remaining > 0 {
                throw failure(.truncated, "the wav data chunk claims \(remaining) bytes more than the stream held")
            }
            if let unpacker, unpacker.carried > 0 {
                throw failure(.truncated, "the wav stream ended inside a sample frame")
            }
        case .trailing: break
        default: throw failure(.truncated, "the wav stream ended inside its header")
        }
    }

    private func fail() { state = .done }

    private func failure(_ code: PlaybackDecodeError.Code, _ message: String) -> PlaybackDecodeError {
        counts.errors += 1
        return PlaybackDecodeError(code, message)
    }

    /// Consumes a prefix of `bytes` in the current state and returns its length.
    private func step(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) -> Int {
        switch state {
        case .done:
            throw PlaybackDecodeError(.invalidState, "the wav stream already finished or failed")
        case .riff:
            guard let taken = gather(12, from: bytes) else { return bytes.count }
            guard magic(0, "RIFF"), magic(8, "WAVE") else {
                throw failure(.malformedHeader, "not a RIFF/WAVE stream (it starts \(hexPrefix(4)))")
            }
            state = .chunkHeader
            return taken
        case .chunkHeader:
            guard let taken = gather(8, from: bytes) else { return bytes.count }
            let size = Int(littleEndian32(4))
            try enterChunk(size: size)
            return taken
        case .format(let size):
            guard let taken = gather(size, from: bytes) else { return bytes.count }
            try parseFormat(size: size)
            state = .chunkHeader
            if size % 2 == 1 { state = .skip(remaining: 1) }
            return taken
        case .skip(let remaining):
            let n = min(remaining, bytes.count)
            state = remaining == n ? .chunkHeader : .skip(remaining: remaining - n)
            return n
        case .data(let remaining):
            let n = min(remaining ?? Int.max, bytes.count)
            if n > 0 { samplesDecoded += unpacker!.unpack(UnsafeRawBufferPointer(rebasing: bytes[0..<n]), output: output) }
            if let remaining { state = remaining == n ? .trailing : .data(remaining: remaining - n) }
            return n
        case .trailing:
            counts.skippedBytes += bytes.count
            return bytes.count
        }
    }

    /// Acts on a chunk header just read (id at 0, size at 4).
    private func enterChunk(size: Int) throws(PlaybackDecodeError) {
        if magic(0, "fmt ") {
            guard sampleRate == nil else { throw failure(.malformedHeader, "the wav stream has a second fmt chunk") }
            guard size >= 16 else { throw failure(.malformedHeader, "the wav fmt chunk holds \(size) bytes, fewer than 16") }
            guard size <= Self.maximumFormatChunkBytes else {
                throw failure(.absurdClaim, "the wav fmt chunk claims \(size) bytes (at most \(Self.maximumFormatChunkBytes) taken)")
            }
            state = .format(size: size)
        } else if magic(0, "data") {
            guard let channels = channelCount else {
                throw failure(.malformedHeader, "the wav data chunk comes before the fmt chunk")
            }
            unpacker = PCM16Unpacker(channelCount: channels)
            let placeholder = size == 0 || size >= 0x7FFF_0000
            state = .data(remaining: placeholder ? nil : size)
        } else {
            let padded = size + size % 2
            skippedHeader += padded
            guard skippedHeader <= Self.maximumSkippedHeaderBytes else {
                throw failure(.absurdClaim, "the wav header skips \(skippedHeader) bytes of other chunks before the data"
                                  + " (at most \(Self.maximumSkippedHeaderBytes))")
            }
            counts.skippedBytes += padded
            state = padded == 0 ? .chunkHeader : .skip(remaining: padded)
        }
    }

    private func parseFormat(size: Int) throws(PlaybackDecodeError) {
        let tag = littleEndian16(0)
        let channels = Int(littleEndian16(2))
        let rate = Int(littleEndian32(4))
        let byteRate = Int(littleEndian32(8))
        let blockAlign = Int(littleEndian16(12))
        let bits = Int(littleEndian16(14))
        let isPCM = tag == 1 || (tag == 0xFFFE && size >= 40 && littleEndian16(24) == 1)
        guard isPCM, bits == 16 else {
            throw failure(.unsupportedFormat, "wav playback takes 16-bit integer PCM, not format tag \(tag) with \(bits) bits")
        }
        guard (1...PCM16Unpacker.maximumChannelCount).contains(channels) else {
            throw failure(.unsupportedFormat, "wav playback takes 1...\(PCM16Unpacker.maximumChannelCount) channels, not \(channels)")
        }
        guard SampleRates.supported.contains(rate) else {
            throw failure(.unsupportedFormat, "wav playback takes 8000...48000 Hz, not \(rate) Hz")
        }
        guard blockAlign == 2 * channels, byteRate == rate * blockAlign else {
            throw failure(.malformedHeader, "the wav fmt chunk contradicts itself: block align \(blockAlign), byte rate"
                              + " \(byteRate) for \(channels) channel(s) of 16 bits at \(rate) Hz")
        }
        channelCount = channels
        sampleRate = rate
    }

    /// Collects `count` header bytes; returns the bytes of `bytes` taken once complete, nil when all were taken
    /// and more are needed.
    private func gather(_ count: Int, from bytes: UnsafeRawBufferPointer) -> Int? {
        let n = min(count - headerFill, bytes.count)
        for i in 0..<n { header[headerFill + i] = bytes[i] }
        headerFill += n
        guard headerFill == count else { return nil }
        headerFill = 0
        return n
    }

    private func magic(_ at: Int, _ text: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        for i in 0..<expected.count where header[at + i] != expected[i] { return false }
        return true
    }

    private func littleEndian16(_ at: Int) -> UInt16 { UInt16(header[at]) | UInt16(header[at + 1]) << 8 }
    private func littleEndian32(_ at: Int) -> UInt32 { UInt32(littleEndian16(at)) | UInt32(littleEndian16(at + 2)) << 16 }

    private func hexPrefix(_ count: Int) -> String {
        header[0..<count].map { String($0, radix: 16) }.joined(separator: " ")
    }
}
