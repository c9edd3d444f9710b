import COgg

/// The one Ogg Opus muxer of the package (RFC 7845 over libogg): the file writer (`AudioFrontEnd.OggOpusWriter`)
/// and the streaming client's socket path (`SpeechStreaming`'s Ogg framing and replay) are both thin layers over
/// it. Package access only.
///
/// It owns libogg's stream state and a page-sized scratch buffer; it writes the OpusHead and OpusTags pages, takes
/// packets with their granule advance, and hands each finished page (header and body in one contiguous buffer,
/// valid only during the call) to the caller's non-escaping sink.
///
/// Real-time safety: libogg allocates its buffers (16 KB body, 1024 lacing values) in `ogg_stream_init`; packets
/// of at most 4000 bytes (an Opus packet's limit) never make them grow, and each page is copied into the scratch
/// buffer sized at creation, so ``append(packet:granuleAdvance:trimmedGranule:end:flush:into:)`` allocates nothing
/// and takes no lock when the sink does not. One thread at a time (the invariant behind `@unchecked Sendable`).
package final class OggOpusPacker: @unchecked Sendable {
    /// Receives one whole page in one contiguous buffer (copied into the packer's scratch first).
    package typealias PageSink = (UnsafeRawBufferPointer) -> Void
    /// Receives one page as libogg holds it, header and body apart (no copy of ours before the sink's).
    package typealias PagePartsSink = (_ header: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Void

    package let serialNumber: UInt32
    /// 48 kHz samples in all audio packets so far, pre-skip included (the last packet's granule position).
    package private(set) var granulePosition: Int64 = 0
    /// Pages handed to a sink so far, header pages included.
    package private(set) var pageCount = 0

    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private let scratch: UnsafeMutableRawBufferPointer
    private let head: [UInt8]
    private let tags: [UInt8]
    private var packetNumber: Int64 = 0

    /// The largest Ogg page: 27-byte header, 255 lacing values, 255 × 255 body bytes.
    package static let maximumPageBytes = 27 + 255 + 255 * 255

    /// Creates the stream state (allocates); nil when libogg fails. Writes nothing yet.
    /// The corresponding C function is `ogg_stream_init`.
    /// - Parameters: head, tags: the OpusHead and OpusTags packets (``OggOpusHeaderPackets``).
    package init?(serialNumber: UInt32, head: [UInt8], tags: [UInt8]) {
        self.serialNumber = serialNumber
        self.head = head
        self.tags = tags
        stream = .allocate(capacity: 1)
        guard ogg_stream_init(stream, Int32(bitPattern: serialNumber)) == 0 else {
            stream.deallocate()
            return nil
        }
        scratch = .allocate(byteCount: Self.maximumPageBytes, alignment: 16)
    }

    deinit {
        ogg_stream_clear(stream)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Starts the stream anew (page sequence 0, beginning-of-stream flag) and writes its OpusHead and OpusTags
    /// pages, each on its own page (RFC 7845 §3). The granule position continues from `granule` (0 for a new
    /// stream; a later value makes the first audio page mark a start offset, as a stream cut from a longer one
    /// may, RFC 7845 §4.5). The corresponding C functions are `ogg_stream_reset` and `ogg_stream_flush`.
    package func start(atGranule granule: Int64 = 0, into sink: PageSink) {
        ogg_stream_reset(stream)
        packetNumber = 0
        granulePosition = granule
        head.withUnsafeBytes { submit($0, granule: 0, beginning: true, end: false) }
        flushAll(into: sink)
        tags.withUnsafeBytes { submit($0, granule: 0, beginning: false, end: false) }
        flushAll(into: sink)
    }

    /// Appends one Opus packet covering `granuleAdvance` samples at 48 kHz; with `flush` its page reaches the
    /// sink before this returns, otherwise only pages libogg considers full do. `trimmedGranule` (the last
    /// packet) sets the page's granule position below the packets' sum, for end trimming (RFC 7845 §4.4); `end`
    /// sets the end-of-stream flag and flushes. Real-time safe when the sink is.
    /// The corresponding C functions are `ogg_stream_packetin` and `ogg_stream_flush` / `ogg_stream_pageout`.
    package func append(packet: UnsafeRawBufferPointer, granuleAdvance: Int64, trimmedGranule: Int64? = nil,
                        end: Bool = false, flush: Bool, into sink: PageSink) {
        append(packet: packet, granuleAdvance: granuleAdvance, trimmedGranule: trimmedGranule, end: end,
               flush: flush, parts: { header, body in self.emit(header, body, into: sink) })
    }

    /// ``append(packet:granuleAdvance:trimmedGranule:end:flush:into:)`` handing each page over in its two parts,
    /// straight from libogg's buffers (the streaming client copies them into its outgoing frame).
    package func append(packet: UnsafeRawBufferPointer, granuleAdvance: Int64, trimmedGranule: Int64? = nil,
                        end: Bool = false, flush: Bool, parts: PagePartsSink) {
        let previous = granulePosition
        granulePosition += granuleAdvance
        let granule = trimmedGranule.map { max(previous, min(granulePosition, $0)) } ?? granulePosition
        submit(packet, granule: granule, beginning: false, end: end)
        var page = ogg_page()
        if flush || end {
            while ogg_stream_flush(stream, &page) != 0 { handOver(page, parts) }
        } else {
            while ogg_stream_pageout(stream, &page) != 0 { handOver(page, parts) }
        }
    }

    private func submit(_ bytes: UnsafeRawBufferPointer, granule: Int64, beginning: Bool, end: Bool) {
        var packet = ogg_packet()
        packet.packet = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        packet.bytes = bytes.count
        packet.b_o_s = beginning ? 1 : 0
        packet.e_o_s = end ? 1 : 0
        packet.granulepos = granule
        packet.packetno = packetNumber
        packetNumber += 1
        ogg_stream_packetin(stream, &packet)
    }

    /// Emits every page libogg holds, partial ones included.
    package func flushAll(into sink: PageSink) {
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 { handOver(page) { emit($0, $1, into: sink) } }
    }

    private func handOver(_ page: ogg_page, _ parts: PagePartsSink) {
        pageCount += 1
        parts(UnsafeRawBufferPointer(start: page.header, count: page.header_len),
              UnsafeRawBufferPointer(start: page.body, count: page.body_len))
    }

    /// Copies one page (header then body) into the scratch buffer and hands it to the sink.
    private func emit(_ header: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer, into sink: PageSink) {
        guard let base = scratch.baseAddress, let headerBase = header.baseAddress,
              header.count + body.count <= scratch.count else { return }
        base.copyMemory(from: headerBase, byteCount: header.count)
        if let bodyBase = body.baseAddress, body.count > 0 {
            (base + header.count).copyMemory(from: bodyBase, byteCount: body.count)
        }
        sink(UnsafeRawBufferPointer(start: base, count: header.count + body.count))
    }
}

/// A copy of `page` with the end-of-stream flag set and its CRC recomputed by libogg, when `page` is exactly one
/// whole Ogg page; nil otherwise. (A streamed Ogg Opus answer ends without the flag: `afe speak` marks its file's
/// last page.) Package access only. The corresponding C function is `ogg_page_checksum_set`.
package func oggPageEndingStream(_ page: [UInt8]) -> [UInt8]? {
    guard page.count >= 27, page[0] == 0x4F, page[1] == 0x67, page[2] == 0x67, page[3] == 0x53 else { return nil }
    let segments = Int(page[26])
    guard page.count >= 27 + segments else { return nil }
    let body = page[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
    guard page.count == 27 + segments + body else { return nil }
    var copy = page
    copy[5] |= 0x04
    copy.withUnsafeMutableBytes { bytes in
        var ogg = ogg_page()
        ogg.header = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        ogg.header_len = 27 + segments
        ogg.body = (bytes.baseAddress! + 27 + segments).assumingMemoryBound(to: UInt8.self)
        ogg.body_len = body
        ogg_page_checksum_set(&ogg)
    }
    return copy
}
