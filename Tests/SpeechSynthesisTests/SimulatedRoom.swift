/// The room between the device and the mic of the playback tests (as in PlayerEchoTests): what is played is heard
/// by a direct path 2.5 ms late at −4 dB and a reflection 12.5 ms late at −10 dB (at 16 kHz).
struct SimulatedRoom {
    private var history = [Float](repeating: 0, count: 400)

    /// The mic's samples for `played`, in `frame` (replaced).
    mutating func echo(of played: UnsafeBufferPointer<Int16>, into frame: inout [Int16]) {
        frame.removeAll(keepingCapacity: true)
        for sample in played {
            history.removeFirst()
            history.append(Float(sample))
            frame.append(Int16(0.63 * history[399 - 40] + 0.32 * history[399 - 200]))
        }
    }
}
