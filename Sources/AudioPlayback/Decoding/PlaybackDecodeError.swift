/// Why a synthesis stream could not be decoded: a code, and a sentence naming what was wrong.
///
/// Thrown by the decoders' `decode` and `finish` calls for what ends a stream (a bad header, an absurd claim, a
/// truncated stream, a library that gives up). Damage a decoder can step over (garbage between Ogg pages, a
/// malformed Opus packet, a lost page) is not thrown: it is counted in ``DecodeCounts``.
public struct PlaybackDecodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The stream ended before a header, a page or a claimed data length was complete.
        case truncated
        /// A header that is not what its format requires (wrong magic, missing chunk, bad field).
        case malformedHeader
        /// A well-formed stream this decoder does not play (24-bit WAV, multichannel Opus, a rate outside 8–48 kHz).
        case unsupportedFormat
        /// A header claims more than is reasonable (a 1 GiB `fmt ` chunk, a 200 kB Opus packet).
        case absurdClaim
        /// Data the library could not decode and could not step over.
        case corruptData
        /// A call after the stream failed or finished.
        case invalidState
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code.rawValue))" }
}

/// What a decoder stepped over or refused so far; every drop is counted here. Read on the decoder's thread.
public struct DecodeCounts: Sendable, Equatable {
    /// Bytes skipped without being decoded: garbage between Ogg pages, bytes after a WAV data chunk.
    public var skippedBytes = 0
    /// Packets or frames the codec refused (each skipped; playback goes on).
    public var corruptPackets = 0
    /// Gaps in the Ogg page sequence (lost or reordered pages).
    public var lostPages = 0
    /// Ogg pages of another logical stream, ignored.
    public var foreignPages = 0
    /// Errors thrown (each one ends its stream).
    public var errors = 0

    public init() {}
}
