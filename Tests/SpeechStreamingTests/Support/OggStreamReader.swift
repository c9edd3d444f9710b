import COgg

/// Reads an Ogg stream back with libogg's demuxer (`ogg_sync_pageout` checks capture and CRC; page sequence and
/// packets come from the page headers): the read side of the library, independent of the client's write path.
enum OggStreamReader {
    struct Page {
        var sequence: Int
        var granule: Int64
        var packets: [[UInt8]]
    }

    struct ReadError: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ bytes: [UInt8]) throws -> [Page] {
        var sync = ogg_sync_state()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        guard let buffer = ogg_sync_buffer(&sync, bytes.count) else { throw ReadError(description: "ogg_sync_buffer") }
        bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        ogg_sync_wrote(&sync, bytes.count)
        var stream = ogg_stream_state()
        var started = false
        defer { if started { ogg_stream_clear(&stream) } }
        var pages: [Page] = []
        var page = ogg_page()
        while true {
            let result = ogg_sync_pageout(&sync, &page)
            if result == 0 { break }
            guard result == 1 else { throw ReadError(description: "bytes skipped before page \(pages.count) (bad capture or CRC)") }
            if !started {
                ogg_stream_init(&stream, ogg_page_serialno(&page))
                started = true
            }
            guard ogg_stream_pagein(&stream, &page) == 0 else { throw ReadError(description: "page \(pages.count) refused") }
            var packets: [[UInt8]] = []
            var packet = ogg_packet()
            while true {
                let got = ogg_stream_packetout(&stream, &packet)
                if got == 0 { break }
                guard got == 1 else { throw ReadError(description: "a hole before page \(pages.count)") }
                packets.append(Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)))
            }
            pages.append(Page(sequence: Int(ogg_page_pageno(&page)), granule: ogg_page_granulepos(&page), packets: packets))
        }
        guard sync.fill == sync.returned else { throw ReadError(description: "\(sync.fill - sync.returned) bytes left over") }
        return pages
    }
}
