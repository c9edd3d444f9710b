/// Reading and renumbering Ogg pages (RFC 3533), enough to group an Ogg Opus stream into frames and to
/// replay part of it as a valid stream.
package enum OggPage {
    static let headerBytes = 27

    package enum Scan: Equatable {
        /// A whole page of this many bytes starts here.
        case page(Int)
        /// The bytes start like a page but it is not all here yet.
        case incomplete
        /// The bytes do not start with a page.
        case invalid
    }

    /// Looks for a page at `offset` of `bytes`.
    package static func scan(_ bytes: [UInt8], at offset: Int) -> Scan {
        let available = bytes.count - offset
        let capture: [UInt8] = [0x4F, 0x67, 0x67, 0x53] // "OggS"
        for i in 0..<min(available, 4) where bytes[offset + i] != capture[i] { return .invalid }
        guard available >= headerBytes else { return .incomplete }
        let segments = Int(bytes[offset + 26])
        guard available >= headerBytes + segments else { return .incomplete }
        var body = 0
        for i in 0..<segments { body += Int(bytes[offset + headerBytes + i]) }
        let length = headerBytes + segments + body
        return available >= length ? .page(length) : .incomplete
    }

    /// The page's granule position (−1: no packet ends on this page).
    static func granule(_ page: ArraySlice<UInt8>) -> Int64 {
        var value: UInt64 = 0
        let start = page.startIndex + 6
        for i in (0..<8).reversed() { value = value << 8 | UInt64(page[start + i]) }
        return Int64(bitPattern: value)
    }

    /// The Opus pre-skip when this page starts with an OpusHead packet.
    static func opusPreSkip(_ page: ArraySlice<UInt8>) -> Int? {
        let segments = Int(page[page.startIndex + 26])
        let body = page.startIndex + headerBytes + segments
        guard page.endIndex - body >= 12, Array(page[body..<body + 8]) == Array("OpusHead".utf8) else { return nil }
        return Int(page[body + 10]) | Int(page[body + 11]) << 8
    }

    /// A copy of `page` with page sequence number `sequence` and a recomputed CRC.
    static func renumbered(_ page: ArraySlice<UInt8>, sequence: UInt32) -> [UInt8] {
        var copy = Array(page)
        for i in 0..<4 { copy[18 + i] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(i))) }
        return withChecksum(copy)
    }

    /// A copy of a whole page with the end-of-stream flag set and a recomputed CRC (a streamed Ogg Opus answer
    /// ends without one: `afe speak` marks its file's last page).
    package static func endingStream(_ page: [UInt8]) -> [UInt8] {
        var copy = page
        copy[5] |= 0x04
        return withChecksum(copy)
    }

    private static func withChecksum(_ page: [UInt8]) -> [UInt8] {
        var copy = page
        for i in 22..<26 { copy[i] = 0 }
        let crc = checksum(copy)
        for i in 0..<4 { copy[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return copy
    }

    /// The Ogg CRC-32 (polynomial 0x04C11DB7, no reflection, initial value 0, no final xor).
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }
}
