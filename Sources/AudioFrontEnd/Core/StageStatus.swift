/// The result of a real-time processing call: ``ok`` or why the frame was not processed.
///
/// Real-time calls return this instead of throwing. A failed call leaves the output buffer holding
/// the unprocessed input where the stage works in place, or silence otherwise.
public struct StageStatus: Hashable, Sendable, CustomStringConvertible {
    /// 0 for success; negative values of our own (below); other values are the C library's return code.
    public let code: Int32

    public init(code: Int32) { self.code = code }

    public static let ok = StageStatus(code: 0)
    /// The buffers passed do not hold exactly one frame of the stage's length.
    public static let wrongFrameLength = StageStatus(code: -10_001)
    /// The output buffer is too small for what the call would produce.
    public static let outputTooSmall = StageStatus(code: -10_002)

    public var isOK: Bool { code == 0 }

    public var description: String {
        switch self {
        case .ok: "ok"
        case .wrongFrameLength: "wrong frame length"
        case .outputTooSmall: "output buffer too small"
        default: "library status \(code)"
        }
    }
}
