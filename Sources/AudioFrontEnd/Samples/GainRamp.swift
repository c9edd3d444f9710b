/// A gain moved linearly across one frame: the click-free way the suppressors after the cancellers
/// (``LateEchoSuppressor``, `PathChangeOutputLimiter`) change their gain from frame to frame.
enum GainRamp {
    /// Scales `frame` by a gain that moves from `from` (before its first sample) to `to` (at its last), rounding
    /// and clamping to Int16; returns `to`, the gain to start the next frame from. Leaves the frame untouched
    /// when both are 1. Real-time safe: no allocation, locks or Foundation.
    @inline(__always)
    static func apply(_ frame: UnsafeMutableBufferPointer<Int16>, from: Float, to: Float) -> Float {
        guard to != 1 || from != 1, !frame.isEmpty else { return to }
        let step = (to - from) / Float(frame.count)
        var g = from
        for i in frame.indices {
            g += step
            frame[i] = Int16(clamping: Int((Float(frame[i]) * g).rounded()))
        }
        return to
    }
}
