import AudioFrontEnd
import AudioPlayback
import XCTest

/// Truncated, garbage and absurd streams: a typed error or counted damage, never a trap, and no memory committed
/// on a claim.
final class PlaybackHostileStreamTests: XCTestCase {
    private func decode(_ format: SynthesisAudioFormat, _ bytes: [UInt8], rate: Int = 16000,
                        splits: [Int] = [100_000]) throws -> (samples: [Int16], error: PlaybackDecodeError?, counts: DecodeCounts) {
        let decoder = try PlaybackDecoder(format: format, sampleRate: rate, outputRate: rate)
        let result = Feed.decode(decoder, bytes, splits: splits)
        return (result.samples, result.error, decoder.decoder.counts)
    }

    private func wavHeader(format: UInt16 = 1, channels: UInt16 = 1, rate: UInt32 = 16000, bits: UInt16 = 16,
                           fmtSize: UInt32 = 16, dataSize: UInt32 = 0xFFFF_FFFF) -> [UInt8] {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        let align = channels &* bits / 8
        var fmt = le16(format) + le16(channels) + le32(rate) + le32(rate &* UInt32(align)) + le16(align) + le16(bits)
        fmt += [UInt8](repeating: 0, count: min(48, max(0, Int(fmtSize) - 16)))
        return Array("RIFF".utf8) + le32(0xFFFF_FFFF) + Array("WAVE".utf8) + Array("fmt ".utf8) + le32(fmtSize)
            + fmt.prefix(Int(min(fmtSize, 64))) + Array("data".utf8) + le32(dataSize)
    }

    func testWAVClaimsAreCheckedBeforeAnythingIsCommitted() throws {
        XCTAssertEqual(try decode(.wav, wavHeader() + [1, 0, 2, 0]).samples, [1, 2])
        XCTAssertEqual(try decode(.wav, Array(wavHeader().prefix(30))).error?.code, .truncated)
        XCTAssertEqual(try decode(.wav, Array("RIFX....WAVE".utf8)).error?.code, .malformedHeader)
        XCTAssertEqual(try decode(.wav, wavHeader(fmtSize: 0x7FFF_FFF0)).error?.code, .absurdClaim)
        XCTAssertEqual(try decode(.wav, wavHeader(bits: 24)).error?.code, .unsupportedFormat)
        XCTAssertEqual(try decode(.wav, wavHeader(format: 3, bits: 32)).error?.code, .unsupportedFormat)
        XCTAssertEqual(try decode(.wav, wavHeader(channels: 0)).error?.code, .unsupportedFormat)
        XCTAssertEqual(try decode(.wav, wavHeader(channels: 200)).error?.code, .unsupportedFormat)
        XCTAssertEqual(try decode(.wav, wavHeader(rate: 4_000_000_000)).error?.code, .unsupportedFormat)
        // A data chunk before fmt, and an unknown chunk claiming 4 GB before the data.
        let riff = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        XCTAssertEqual(try decode(.wav, riff + Array("data".utf8) + [4, 0, 0, 0, 1, 2, 3, 4]).error?.code, .malformedHeader)
        XCTAssertEqual(try decode(.wav, riff + Array("LIST".utf8) + [0xF0, 0xFF, 0xFF, 0xFF]).error?.code, .absurdClaim)
        // A data length the stream does not reach is truncated (what was there is played); one it exceeds
        // stops playback at the claim and counts the rest as skipped.
        let short = try decode(.wav, wavHeader(dataSize: 8) + [1, 0, 2, 0])
        XCTAssertEqual(short.samples, [1, 2])
        XCTAssertEqual(short.error?.code, .truncated)
        let long = try decode(.wav, wavHeader(dataSize: 2) + [1, 0, 2, 0, 3])
        XCTAssertEqual(long.samples, [1])
        XCTAssertNil(long.error)
        XCTAssertEqual(long.counts.skippedBytes, 3)
    }

    func testPCMOddLengthIsTruncated() throws {
        let result = try decode(.pcm, [1, 0, 2], splits: [1])
        XCTAssertEqual(result.samples, [1])
        XCTAssertEqual(result.error?.code, .truncated)
        XCTAssertThrowsError(try PlaybackDecoder(format: .pcm, sampleRate: 100, outputRate: 16000))
    }

    func testMP3GarbageAndTruncation() throws {
        let wav = try EncodedInputs.speech(rate: 16000)
        let mp3 = try EncodedInputs.mp3(wav, kbps: 32)
        XCTAssertEqual(try decode(.mp3, Array(mp3.prefix(100))).error?.code, .truncated)
        XCTAssertNotNil(try decode(.mp3, Self.noise(seed: 3, count: 200_000)).error)
        // Junk in the middle: libmpg123 resynchronises; most of the audio still plays.
        var damaged = mp3
        for i in stride(from: mp3.count / 2, to: mp3.count / 2 + 3000, by: 1) { damaged[i] = UInt8(truncatingIfNeeded: i &* 31) }
        let result = try decode(.mp3, damaged)
        XCTAssertGreaterThan(result.samples.count, 16000, "\(result.error.map(String.init(describing:)) ?? "no error")")
        // An ID3v2 tag claiming 256 MB is skipped by counting, not read into memory.
        let tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F]
        XCTAssertEqual(try decode(.mp3, tag + mp3).samples.count, 0)
    }

    func testOpusHostilePagesAreTypedOrCounted() throws {
        let wav = try EncodedInputs.speech(rate: 16000)
        let opus = try EncodedInputs.opus(wav)
        let pages = Feed.oggPages(opus)
        let clean = try decode(.opus, opus)
        XCTAssertNil(clean.error)
        // No beginning-of-stream page.
        XCTAssertEqual(try decode(.opus, pages.dropFirst(2).flatMap { $0 }).error?.code, .malformedHeader)
        // Cut inside a page.
        let cut = try decode(.opus, Array(opus.prefix(opus.count - 10)))
        XCTAssertEqual(cut.error?.code, .truncated)
        XCTAssertGreaterThan(cut.samples.count, clean.samples.count / 2)
        // Headers only.
        XCTAssertEqual(try decode(.opus, Array(pages[0])).error?.code, .truncated)
        // Junk between pages is skipped and counted; a lost page is counted.
        var junked: [UInt8] = []
        for (i, page) in pages.enumerated() { junked += page; if i == 4 { junked += Self.noise(seed: 9, count: 777) } }
        let skipped = try decode(.opus, junked, splits: [333])
        XCTAssertNil(skipped.error)
        XCTAssertGreaterThanOrEqual(skipped.counts.skippedBytes, 777)
        var lost = pages
        lost.remove(at: 5)
        let gap = try decode(.opus, lost.flatMap { $0 })
        XCTAssertNil(gap.error)
        XCTAssertEqual(gap.counts.lostPages, 1)
        // A header that is not OpusHead, and a multichannel (family 1) one.
        XCTAssertEqual(try decode(.opus, Self.oggPage(Array("OpusHeaX".utf8) + [UInt8](repeating: 1, count: 11), bos: true)).error?.code,
                       .malformedHeader)
        var family1 = Array("OpusHead".utf8) + [1, 6, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 1]
        family1 += [4, 2, 0, 1, 2, 3, 4, 5]
        XCTAssertEqual(try decode(.opus, Self.oggPage(family1, bos: true)).error?.code, .unsupportedFormat)
        // A packet continued over pages past 64 KiB: refused before libogg stores it.
        var endless = pages[0] + pages[1]
        for sequence in 2..<300 { endless += Self.oggPage([UInt8](repeating: 0x55, count: 255 * 255), bos: false,
                                                          continued: sequence > 2, sequence: UInt32(sequence), unfinished: true,
                                                          serial: Array(pages[0][14..<18])) }
        XCTAssertEqual(try decode(.opus, endless).error?.code, .absurdClaim)
    }

    func testOpusStreamsOneAfterAnotherWithOrWithoutEndOfStreamBothPlay() throws {
        let first = try EncodedInputs.opus(try EncodedInputs.speech(rate: 16000))
        let second = try EncodedInputs.opus(try EncodedInputs.speech(rate: 24000))
        let one = try decode(.opus, first).samples.count
        let two = try decode(.opus, second).samples.count
        // Chained (the first ends with its end-of-stream page), and the first's end-of-stream flag cleared.
        var pages = Feed.oggPages(first)
        XCTAssertEqual(try decode(.opus, pages.flatMap { $0 } + second).samples.count, one + two)
        var last = pages.removeLast()
        last[5] &= ~4
        last.replaceSubrange(22..<26, with: [0, 0, 0, 0])
        var crc: UInt32 = 0
        for byte in last {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for i in 0..<4 { last[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        let unended = try decode(.opus, pages.flatMap { $0 } + last + second)
        XCTAssertNil(unended.error)
        // Without its end page the first stream's last packet is not trimmed to the granule: up to one packet more.
        XCTAssertGreaterThanOrEqual(unended.samples.count, one + two)
        XCTAssertLessThanOrEqual(unended.samples.count, one + two + 960)
        XCTAssertEqual(unended.counts.foreignPages, 0)
    }

    func testRandomBytesNeverTrapInAnyFormat() throws {
        let wav = try EncodedInputs.speech(rate: 16000)
        let seeds: [[UInt8]] = [try EncodedInputs.opus(wav), try EncodedInputs.mp3(wav, kbps: 32), try EncodedInputs.bytes(wav)]
        var outcomes: [String: Int] = [:]
        for iteration in 0..<300 {
            var state = UInt64(iteration) &* 0x9E37_79B9_7F4A_7C15 | 1
            func next() -> Int { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return Int(state % 1_000_000) }
            for (formatIndex, format) in [SynthesisAudioFormat.opus, .mp3, .wav, .pcm].enumerated() {
                var bytes = Array(seeds[min(formatIndex, 2)].prefix(4000 + next() % 20000))
                for _ in 0..<(1 + next() % 20) { bytes[next() % bytes.count] = UInt8(next() % 256) }
                if next() % 3 == 0 { bytes = Self.noise(seed: UInt64(iteration), count: 1 + next() % 5000) }
                let result = try decode(format, bytes, splits: Feed.randomSplits(seed: UInt64(iteration), maximum: 900))
                outcomes[result.error?.code.rawValue ?? "ok", default: 0] += 1
            }
        }
        print("random streams (seeds 0..<300): \(outcomes.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(outcomes["ok", default: 0], 0)
    }

    static func noise(seed: UInt64, count: Int) -> [UInt8] {
        var state = seed &+ 0x1234_5678
        return (0..<count).map { _ in state = state &* 6364136223846793005 &+ 1; return UInt8(truncatingIfNeeded: state >> 40) }
    }

    /// One Ogg page around `body` (split into 255-byte lacing values), with a correct CRC.
    static func oggPage(_ body: [UInt8], bos: Bool, continued: Bool = false, sequence: UInt32 = 0, unfinished: Bool = false,
                        serial: [UInt8] = [0x21, 0x43, 0x65, 0x07]) -> [UInt8] {
        var lacing = [UInt8](repeating: 255, count: body.count / 255)
        if !unfinished { lacing.append(UInt8(body.count % 255)) }
        var header: [UInt8] = Array("OggS".utf8) + [0, (bos ? 2 : 0) | (continued ? 1 : 0)]
        header += [UInt8](repeating: unfinished ? 0xFF : 0, count: 8) // granule: -1 when no packet ends here
        header += serial
        header += (0..<4).map { UInt8(truncatingIfNeeded: sequence >> (8 * $0)) }
        header += [0, 0, 0, 0, UInt8(lacing.count)] + lacing
        var page = header + body
        var crc: UInt32 = 0
        for byte in page {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        for i in 0..<4 { page[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        return page
    }
}
