import AudioFrontEnd
import COgg
#if canImport(Glibc)
import Glibc
#endif

/// The `opus` format: an Ogg Opus stream (RFC 7845) whose pages arrive one per binary frame, or split and joined
/// anywhere; libogg finds and checks the pages (CRC), libopus decodes the packets. See ``SynthesisStreamDecoder``.
///
/// Honoured: OpusHead (channels, pre-skip, output gain), OpusTags (checked, skipped), the end-of-stream page's
/// granule position (the last packet is trimmed to it), chained streams (a beginning-of-stream page starts over,
/// whether or not the previous stream ended). Stepped over and counted: junk between pages, pages of other
/// logical streams, gaps in the page sequence, packets libopus refuses. Not done: the start trim of RFC 7845
/// §4.5 (a first audio page whose granule position is below its packets' duration). Thrown: a stream that does not start with
/// OpusHead + OpusTags, mapping families other than 0, a packet longer than ``maximumPacketBytes`` (claimed by
/// continued pages; checked before libogg commits memory for it), and a stream that ends inside a page.
///
/// Output rate: the preferred rate when libopus decodes at it (8, 12, 16, 24, 48 kHz), else 48 kHz. Steady state
/// allocates nothing (libogg's buffers stop growing once they hold the largest page).
public final class OggOpusStreamDecoder: SynthesisStreamDecoder {
    public let format = SynthesisAudioFormat.opus
    public private(set) var sampleRate: Int?
    public private(set) var counts = DecodeCounts()
    public private(set) var samplesDecoded = 0

    /// The longest packet taken: 64 KiB (an Opus packet is at most 120 ms × 6 frames × 1275 bytes ≈ 61 kB;
    /// OpusTags of real encoders are a few hundred bytes).
    public static let maximumPacketBytes = 1 << 16

    private enum Phase { case head, tags, audio, ended }

    private let decodeRate: Int
    private let sync: UnsafeMutablePointer<ogg_sync_state>
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var phase = Phase.head
    private var hasStream = false
    private var failed = false
    private var decoder: Opus.Decoder?
    private var head: OpusHead?
    private var gain: Float = 1
    /// Decode-rate samples still to drop for pre-skip.
    private var skipRemaining = 0
    /// 48 kHz samples decoded in the current logical stream (pre-skip included): the granule position so far.
    private var granule = 0
    private let pcm: UnsafeMutableBufferPointer<Int16>

    /// - Parameter preferredSampleRate: the rate wanted (the playback rate, or the task's `sample_rate`).
    public init(preferredSampleRate: Int = 48000) {
        decodeRate = Opus.sampleRates.contains(preferredSampleRate) ? preferredSampleRate : Opus.granuleRate
        sync = .allocate(capacity: 1)
        stream = .allocate(capacity: 1)
        ogg_sync_init(sync)
        // Room for the largest page and a piece after it, reserved now so that the sync buffer never grows later.
        _ = ogg_sync_buffer(sync, 2 * 65536)
        ogg_stream_init(stream, 0)
        pcm = .allocate(capacity: 2 * Opus.maximumPacketDuration48kHz)
    }

    deinit {
        ogg_sync_clear(sync)
        ogg_stream_clear(stream)
        sync.deallocate()
        stream.deallocate()
        pcm.deallocate()
    }

    public func decode(_ bytes: UnsafeRawBufferPointer, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !failed else { throw PlaybackDecodeError(.invalidState, "the opus stream already finished or failed") }
        var offset = 0
        do throws(PlaybackDecodeError) {
            while offset < bytes.count {
                let n = min(bytes.count - offset, 1 << 16)
                guard let buffer = ogg_sync_buffer(sync, n) else {
                    throw PlaybackDecodeError(.corruptData, "libogg could not take \(n) bytes")
                }
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
                ogg_sync_wrote(sync, n)
                offset += n
                try takePages(output: output)
            }
        } catch {
            failed = true
            counts.errors += 1
            throw error
        }
    }

    public func finish(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        guard !failed else { throw PlaybackDecodeError(.invalidState, "the opus stream already finished or failed") }
        failed = true
        let unread = Int(sync.pointee.fill - sync.pointee.returned)
        let partialPacket = hasStream && stream.pointee.body_fill > stream.pointee.body_returned
        let problem: String? = switch phase {
        case .head: "the opus stream ended before its OpusHead header"
        case .tags: "the opus stream ended before its OpusTags header"
        case .audio, .ended:
            unread > 0 ? "the opus stream ended inside an Ogg page (\(unread) bytes left)"
                : partialPacket ? "the opus stream ended inside a packet continued over pages" : nil
        }
        if let problem {
            counts.errors += 1
            throw PlaybackDecodeError(.truncated, problem)
        }
    }

    private func takePages(output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        var page = ogg_page()
        while true {
            let result = ogg_sync_pageseek(sync, &page)
            if result == 0 { return }
            if result < 0 {
                counts.skippedBytes += -result
                continue
            }
            try take(&page, output: output)
        }
    }

    private func take(_ page: inout ogg_page, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        let serial = ogg_page_serialno(&page)
        if ogg_page_bos(&page) != 0 {
            // A new logical stream: after the end of the last (a chain), or in its middle — a server that starts
            // each sentence as its own stream without ending the previous one. Synthesis streams are never
            // multiplexed, so the new one replaces the old (its headers, pre-skip and gain apply from here).
            if hasStream && phase != .ended && stream.pointee.body_fill > stream.pointee.body_returned {
                counts.lostPages += 1 // a packet of the old stream left unfinished
            }
            ogg_stream_reset_serialno(stream, serial)
            hasStream = true
            phase = .head
            granule = 0
        } else if !hasStream {
            throw PlaybackDecodeError(.malformedHeader, "the opus stream does not start with a beginning-of-stream Ogg page")
        } else if serial != stream.pointee.serialno || phase == .ended {
            counts.foreignPages += 1
            return
        }
        let pending = stream.pointee.body_fill - stream.pointee.body_returned
        guard pending + page.body_len <= Self.maximumPacketBytes else {
            throw PlaybackDecodeError(.absurdClaim, "an Ogg packet continues past \(Self.maximumPacketBytes) bytes")
        }
        guard ogg_stream_pagein(stream, &page) == 0 else {
            counts.foreignPages += 1
            return
        }
        var packet = ogg_packet()
        while true {
            let result = ogg_stream_packetout(stream, &packet)
            if result == 0 { break }
            if result < 0 {
                counts.lostPages += 1
                continue
            }
            try take(packet, output: output)
        }
    }

    private func take(_ packet: ogg_packet, output: (UnsafeBufferPointer<Int16>) -> Void) throws(PlaybackDecodeError) {
        let bytes = UnsafeBufferPointer(start: packet.packet, count: packet.bytes)
        switch phase {
        case .head:
            let head = try OpusHead(bytes)
            if decoder?.channelCount != head.channelCount {
                do {
                    decoder = try Opus.Decoder(sampleRate: decodeRate, channelCount: head.channelCount)
                } catch {
                    throw PlaybackDecodeError(.corruptData, "libopus could not create a decoder: \(error)")
                }
            } else {
                decoder?.reset()
            }
            self.head = head
            skipRemaining = head.preSkip * decodeRate / Opus.granuleRate
            gain = head.outputGain == 0 ? 1 : Float(pow(10, Double(head.outputGain) / (256 * 20)))
            sampleRate = decodeRate
            phase = .tags
        case .tags:
            try OpusHead.checkTags(bytes)
            phase = .audio
        case .audio:
            decodeAudio(bytes, endOfStream: packet.e_o_s != 0, granulePosition: Int(packet.granulepos), output: output)
            if packet.e_o_s != 0 { phase = .ended }
        case .ended:
            counts.foreignPages += 1
        }
    }

    private func decodeAudio(_ bytes: UnsafeBufferPointer<UInt8>, endOfStream: Bool, granulePosition: Int,
                             output: (UnsafeBufferPointer<Int16>) -> Void) {
        guard let decoder, let channels = head?.channelCount else { return }
        let duration48 = Opus.packetDuration(bytes)
        let decoded = duration48 > 0 ? decoder.decode(packet: bytes, into: pcm) : -1
        guard decoded > 0 else {
            counts.corruptPackets += 1
            if duration48 > 0 { granule += duration48 } // its time passes all the same: the end trim stays right
            return
        }
        var count = decoded
        if channels == 2 {
            for i in 0..<count { pcm[i] = Int16((Int(pcm[2 * i]) + Int(pcm[2 * i + 1])) / 2) }
        }
        let start = min(skipRemaining, count)
        skipRemaining -= start
        if endOfStream, granulePosition >= 0 {
            // The end-of-stream page's granule position is where the stream ends: trim the excess off this packet.
            let excess48 = granule + duration48 - granulePosition
            if excess48 > 0 { count = max(start, count - excess48 * decodeRate / Opus.granuleRate) }
        }
        granule += duration48
        if gain != 1 {
            for i in start..<count { pcm[i] = Int16(max(-32768, min(32767, (Float(pcm[i]) * gain).rounded()))) }
        }
        guard count > start else { return }
        samplesDecoded += count - start
        output(UnsafeBufferPointer(rebasing: pcm[start..<count]))
    }
}
