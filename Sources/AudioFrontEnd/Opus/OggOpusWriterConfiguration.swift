extension OggOpusWriter {
    /// How packets are grouped into Ogg pages.
    public enum Paging: Sendable, Hashable {
        /// Every packet leaves at once on its own page: the streaming mode (about 27 + 1 bytes of overhead
        /// per packet, no added latency).
        case pagePerPacket
        /// libogg fills pages (about 4 KB or 255 segments each) before it emits them: smaller files, but a
        /// page leaves only when it is full. For files.
        case packed
    }

    /// Settings for an ``OggOpusWriter``.
    public struct Configuration: Sendable, Hashable {
        /// Page grouping. Default ``Paging/pagePerPacket`` (streaming).
        public var paging: Paging = .pagePerPacket
        /// The Ogg bitstream serial number; nil (the default) draws a random one, as RFC 3533 asks.
        public var serialNumber: UInt32? = nil
        /// The OpusTags vendor string: what produced the stream. Default "AudioFrontEnd" and the libopus version.
        public var vendor: String = "AudioFrontEnd (\(Opus.libraryVersion))"
        /// User comments, each "NAME=value". Default ["ENCODER=AudioFrontEnd"].
        public var comments: [String] = ["ENCODER=AudioFrontEnd"]

        public init() {}

        /// Checks the comments' form.
        /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` naming a malformed comment.
        public func validate() throws {
            for comment in comments { try Self.validate(comment: comment) }
        }

        /// Throws ``AudioFrontEndError/Code/invalidConfiguration`` unless `comment` is "NAME=value" with a
        /// name of printable ASCII other than '=' (RFC 7845 §5.2, after Vorbis comments).
        static func validate(comment: String) throws {
            guard let equals = comment.firstIndex(of: "="), equals != comment.startIndex,
                  comment[..<equals].utf8.allSatisfy({ (0x20...0x7D).contains($0) }) else {
                throw AudioFrontEndError(.invalidConfiguration,
                                         "an OpusTags comment must look like NAME=value with an ASCII name, not \"\(comment)\"")
            }
        }
    }
}

extension StageStatus {
    /// ``OggOpusWriter``: the bytes passed are not a valid Opus packet.
    public static let invalidPacket = StageStatus(code: -10_101)
    /// ``OggOpusWriter``: the stream has already ended (``OggOpusWriter/finish(lastPacket:inputSampleCount:)``).
    public static let streamFinished = StageStatus(code: -10_102)
}
