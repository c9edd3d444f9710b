import AudioFrontEnd
import CMpg123

/// The `mp3` format through libmpg123's feed mode: bytes in as they arrive, mono 16-bit PCM out (stereo mixed
/// by libmpg123), at the stream's own rate. Gapless: the encoder delay and padding that a LAME/Xing frame
/// announces are trimmed. ID3v2 tags are skipped without being read into memory (a tag's size is a claim).
/// See ``SynthesisStreamDecoder`` for the contract.
///
/// Hostile input: libmpg123 resynchronises over junk (at most ``resyncLimitBytes``) and conceals bad frames;
/// what it gives up on ends the stream with ``PlaybackDecodeError/Code/corruptData``. A second rate in the same
/// stream is ``PlaybackDecodeError/Code/unsupportedFormat``. The input held inside libmpg123 is bounded by the
/// piece given (everything is decoded before the call returns); its feed buffers are pooled, so the steady state
/// allocates nothing. The corresponding C functions are `mpg123_new`, `mpg123_open_feed`, `mpg123_decode`
/// (`mpg123_param2` is what the header's `mpg123_param` macro names; Swift does not see the macro).
public final class MP3StreamDecoder: SynthesisStreamDecoder {
    public let format = SynthesisAudioFormat.mp3
    public private(set) var sampleRate: Int?
    public private(set) var counts = DecodeCounts()
    public private(set) var samplesDecoded = 0

    /// Junk libmpg123 may skip while looking for the next frame header before it gives up: 64 KiB.
    public static let resyncLimitBytes = 1 << 16
    /// Bytes handed to libmpg123 per call (and so the most it holds of one piece).
    static let inputChunkBytes = 16384

    private let handle: OpaquePointer
    private let pcm: UnsafeMutableBufferPointer<Int16>
    private var failed = false

    /// - Throws: ``PlaybackDecodeError/Code/corruptData`` when libmpg123 cannot create a decoder.
    public init() throws(PlaybackDecodeError) {
        var error: Int32 = 0
        guard let handle = mpg123_new(nil, &error) else {
            throw PlaybackDecodeError(.corruptData, "mpg123_new failed: \(String(cString: mpg123_plain_strerror(error)))")
        }
        self.handle = handle
        pcm = .allocate(capacity: 4608)
        let flags = Int(MPG123_QUIET.rawValue | MPG123_MONO_MIX.rawValue | MPG123_GAPLESS.rawValue
                        | MPG123_SKIP_ID3V2.rawValue | MPG123_NO_FRANKENSTEIN.rawValue)
        var status = mpg123_param2(handle, Int32(MPG123_FLAGS.rawValue), flags, 0)
        if status == MPG123_OK.rawValue { status = mpg123_param2(handle, Int32(MPG123_RESYNC_LIMIT.rawValue), Self.resyncLimitBytes, 0) }
        if status == MPG123_OK.rawValue { status = mpg123_param2(handle, Int32(MPG123_FEEDPOOL.rawValue), 16, 0) }
        if status == MPG123_OK.rawValue { status = mpg123_format_none(handle) }
        if status == MPG123_OK.rawValue { status = Self.allowRates(handle) }
        if status == MPG123_OK.rawValue { status = mpg123_open_feed(handle) }
        guard status == MPG123_OK.rawValue else {
            let reason = String(cString: mpg123_strerror(handle))
            mpg123_delete(handle)
            pcm.deallocate()
            throw PlaybackDecodeError(.corruptData, "libmpg123 set-up failed: \(reason)")
        }
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
        pcm.deallocate()
    }

    /// Allows every MPEG rate as mono 16-bit output (libmpg123 then never resamples).
    private static func allowRates(_ handle: OpaquePointer) -> Int32 {
        var list: UnsafePointer<Int>?
        var count = 0
        mpg123_rates(&list, &count)
        guard let list else { return MPG123_ERR.rawValue }
        for i in 0..<count {
            let status = mpg123_format(handle, list[i], Int32(MPG123_MONO.rawValue), Int32(MPG123_ENC_SIGNED_16.rawValue))
            if status != MPG123_OK.rawValue { return status }
        }
        return MPG123_OK.rawValue
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !failed else { throw PlaybackDecodeError(.invalidState, "the mp3 stream already finished or failed") }
        var offset = 0
        while offset < bytes.count {
            let n = min(Self.inputChunkBytes, bytes.count - offset)
            let input = bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            try pump(input, n, output: output)
            offset += n
        }
    }

    public func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !failed else { throw PlaybackDecodeError(.invalidState, "the mp3 stream already finished or failed") }
        defer { failed = true }
        guard sampleRate != nil else {
            counts.errors += 1
            throw PlaybackDecodeError(.truncated, "the mp3 stream ended before its first whole frame")
        }
    }

    /// Feeds `count` bytes and decodes until libmpg123 needs more.
    private func pump(_ input: UnsafePointer<UInt8>?, _ count: Int, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        var data = input
        var size = count
        while true {
            var done = 0
            let status = mpg123_decode(handle, data, size, pcm.baseAddress, pcm.count * 2, &done)
            data = nil
            size = 0
            if done > 0 {
                let samples = done / 2
                samplesDecoded += samples
                output(UnsafeBufferPointer(rebasing: pcm[0..<samples]))
            }
            switch status {
            case MPG123_NEED_MORE.rawValue, MPG123_DONE.rawValue: return
            case MPG123_NEW_FORMAT.rawValue: try takeFormat()
            case MPG123_OK.rawValue: continue
            default:
                failed = true
                counts.errors += 1
                throw PlaybackDecodeError(.corruptData, "libmpg123 gave up: \(String(cString: mpg123_strerror(handle)))")
            }
        }
    }

    private func takeFormat() throws(PlaybackDecodeError) {
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        mpg123_getformat(handle, &rate, &channels, &encoding)
        if let sampleRate, sampleRate != rate {
            failed = true
            counts.errors += 1
            throw PlaybackDecodeError(.unsupportedFormat, "the mp3 stream changes rate from \(sampleRate) to \(rate) Hz")
        }
        guard SampleRates.supported.contains(rate), channels == 1 else {
            failed = true
            counts.errors += 1
            throw PlaybackDecodeError(.unsupportedFormat, "mp3 playback takes 8000...48000 Hz, not \(rate) Hz")
        }
        sampleRate = rate
    }
}
