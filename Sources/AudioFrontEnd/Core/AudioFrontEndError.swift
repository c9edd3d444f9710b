/// The error every throwing AudioFrontEnd call throws: a code, a message naming the problem, and the
/// C library's status when a C call failed.
///
/// Set-up (create, configure, open) throws this; real-time calls never throw and return a ``StageStatus``.
public struct AudioFrontEndError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// A sample rate the component cannot work at.
        public static let unsupportedSampleRate = Code("unsupportedSampleRate")
        /// A frame length that is not a whole number of 10 ms frames, or not one the component takes.
        public static let invalidFrameLength = Code("invalidFrameLength")
        /// A configuration value outside its documented range.
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// A C library refused a call; ``AudioFrontEndError/libraryStatus`` holds its return code.
        public static let libraryFailure = Code("libraryFailure")
        /// A file could not be opened, read, written or parsed.
        public static let fileError = Code("fileError")
        /// A call made in a state that does not allow it.
        public static let invalidState = Code("invalidState")
    }

    public var code: Code
    /// A sentence naming the problem, e.g. "AECM works at 8000 or 16000 Hz, not 48000 Hz".
    public var message: String
    /// The C library's return code, when a C call failed.
    public var libraryStatus: Int32?

    public init(_ code: Code, _ message: String, libraryStatus: Int32? = nil) {
        self.code = code
        self.message = message
        self.libraryStatus = libraryStatus
    }

    public var description: String {
        if let status = libraryStatus { return "\(message) (\(code), status \(status))" }
        return "\(message) (\(code))"
    }
}

extension AudioFrontEndError {
    /// Throws `code` (``Code/invalidConfiguration`` unless told) unless `value` lies in `range`.
    static func check<T: Comparable>(_ value: T, in range: ClosedRange<T>, _ name: String,
                                     code: Code = .invalidConfiguration) throws {
        guard range.contains(value) else {
            throw AudioFrontEndError(code,
                                     "\(name) must be in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
    }
}
