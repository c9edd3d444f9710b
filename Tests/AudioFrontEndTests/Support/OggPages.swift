/// An Ogg page parser written from RFC 3533 for the tests, independent of libogg: it checks the capture
/// pattern, version and CRC of every page and reassembles packets from the lacing values.
struct OggPage: Equatable {
    var flags: UInt8
    var granulePosition: Int64
    var serialNumber: UInt32
    var sequenceNumber: UInt32
    var checksum: UInt32
    var lacing: [UInt8]
    var body: [UInt8]
    /// The page's bytes exactly as written.
    var bytes: [UInt8]

    var isContinuation: Bool { flags & 0x01 != 0 }
    var isBeginningOfStream: Bool { flags & 0x02 != 0 }
    var isEndOfStream: Bool { flags & 0x04 != 0 }

    /// Packets that end on this page (a packet continued from an earlier page is not included whole).
    var completedPacketCount: Int { lacing.filter { $0 < 255 }.count }

    enum ParseError: Error, CustomStringConvertible {
        case truncated(offset: Int), badCapture(offset: Int), badVersion(offset: Int), badChecksum(page: Int)
        var description: String {
            switch self {
            case .truncated(let o): "page truncated at byte \(o)"
            case .badCapture(let o): "no \"OggS\" capture pattern at byte \(o)"
            case .badVersion(let o): "stream structure version is not 0 at byte \(o)"
            case .badChecksum(let p): "CRC mismatch on page \(p)"
            }
        }
    }

    /// Splits a byte stream into pages, checking each one.
    static func parse(_ data: [UInt8]) throws -> [OggPage] {
        var pages: [OggPage] = []
        var offset = 0
        while offset < data.count {
            guard data.count - offset >= 27 else { throw ParseError.truncated(offset: offset) }
            guard Array(data[offset..<(offset + 4)]) == Array("OggS".utf8) else { throw ParseError.badCapture(offset: offset) }
            guard data[offset + 4] == 0 else { throw ParseError.badVersion(offset: offset) }
            let segments = Int(data[offset + 26])
            guard data.count - offset >= 27 + segments else { throw ParseError.truncated(offset: offset) }
            let lacing = Array(data[(offset + 27)..<(offset + 27 + segments)])
            let bodyLength = lacing.reduce(0) { $0 + Int($1) }
            let end = offset + 27 + segments + bodyLength
            guard end <= data.count else { throw ParseError.truncated(offset: offset) }
            let bytes = Array(data[offset..<end])
            let page = OggPage(flags: bytes[5], granulePosition: Int64(bitPattern: littleEndian(bytes, 6, 8)),
                               serialNumber: UInt32(littleEndian(bytes, 14, 4)),
                               sequenceNumber: UInt32(littleEndian(bytes, 18, 4)),
                               checksum: UInt32(littleEndian(bytes, 22, 4)), lacing: lacing,
                               body: Array(bytes[(27 + segments)...]), bytes: bytes)
            var zeroed = bytes
            zeroed.replaceSubrange(22..<26, with: [0, 0, 0, 0])
            guard crc32(zeroed) == page.checksum else { throw ParseError.badChecksum(page: pages.count) }
            pages.append(page)
            offset = end
        }
        return pages
    }

    /// The packets of a sequence of pages, in order, joined across page boundaries.
    static func packets(_ pages: [OggPage]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        for page in pages {
            var position = 0
            for value in page.lacing {
                current += page.body[position..<(position + Int(value))]
                position += Int(value)
                if value < 255 { packets.append(current); current = [] }
            }
        }
        return packets
    }

    static func littleEndian(_ bytes: [UInt8], _ start: Int, _ count: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << (8 * UInt64($1)) }
    }

    /// The Ogg CRC-32: polynomial 0x04C11DB7, most significant bit first, initial value 0, no final xor.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }
}
