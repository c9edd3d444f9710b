/// The fixed-size record the audio thread writes for each event; payloads (samples, bytes) travel in their
/// own rings, in the same order, and the drain thread turns both into ``FrontEndEvent`` values.
struct RawEvent: BitwiseCopyable {
    enum Kind: UInt8 {
        case audio, speechStart, speechEnd, level, opusPacket, oggPage, telemetry, drops, finished, bargeIn
    }

    var kind: Kind
    /// Sample position (audio: at the output rate) or milliseconds, per kind.
    var position: Int = 0
    /// Payload elements in the sample or byte ring.
    var payloadCount: Int = 0
    var values: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
    var counts: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)
    var flag = false

    init(_ kind: Kind, position: Int = 0, payloadCount: Int = 0) {
        self.kind = kind
        self.position = position
        self.payloadCount = payloadCount
    }
}
