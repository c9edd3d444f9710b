#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds the delivered output at least ``depthDecibels`` under the mic for ``holdFrames`` frames of playback after
/// an echo path change was detected (a speex divergence reset, ``SpeexEchoCanceller/divergenceResets``): while the
/// cleared speex filter and AEC2 re-adapt to the new path, the new echo passes both at 5-20 dB of reduction for
/// about a second (issue 12, branch reconv23: AEC2 alone keeps 22-37 dB there; the chain's AEC2, behind speex's
/// decorrelating residual suppressor, does not, even at high suppression). A frame whose output stands less than
/// the depth under the mic is scaled down to it, the gain ramped across the frame from the last one; frames with
/// the far end silent neither count nor are touched.
///
/// It acts on the delivered audio only (the VAD, the echo gate and the barge-in decision judge the cancellers'
/// output, as with ``LateEchoSuppressor``), and only after a detected change: near-end speech in the held time is
/// attenuated too, which is why it is short and opt-in
/// (``WebRTCEchoCanceller/Configuration/pathChangeOutputDepthDecibels``).
///
/// No allocation, locks or Foundation; ``process(_:mic:playing:)`` is real-time safe. One thread at a time.
struct PathChangeOutputLimiter {
    /// How far under the mic (dB) the output is held.
    let depthDecibels: Float
    /// Playback frames (10 ms) the hold lasts after ``arm()``.
    let holdFrames: Int
    private(set) var framesLeft = 0
    /// Times ``arm()`` was called, and frames actually scaled down.
    private(set) var armings = 0
    private(set) var limitedFrames = 0
    private var gain: Float = 1

    init(depthDecibels: Float, holdMilliseconds: Int) {
        self.depthDecibels = depthDecibels
        holdFrames = max(1, holdMilliseconds / 10)
    }

    /// An echo path change was detected: hold the output for ``holdFrames`` playback frames from now (a second
    /// call restarts the time).
    mutating func arm() {
        framesLeft = holdFrames
        armings += 1
    }

    /// Whether a frame would pass untouched (no hold, the gain back at 1).
    var isIdle: Bool { framesLeft == 0 && gain == 1 }

    /// Scales `frame` (the output delivered for the input whose mic level is `mic`, dBFS) down to ``depthDecibels``
    /// under the mic while the hold lasts and the far end plays (`playing`); the gain returns to 1 over one frame
    /// afterwards.
    mutating func process(_ frame: UnsafeMutableBufferPointer<Int16>, mic: Float, playing: Bool) {
        var target: Float = 1
        if framesLeft > 0, playing {
            framesLeft -= 1
            let excess = LevelMeter.rmsDecibels(UnsafeBufferPointer(frame)) - (mic - depthDecibels)
            if excess > 0 {
                target = powf(10, -excess / 20)
                limitedFrames += 1
            }
        }
        gain = GainRamp.apply(frame, from: gain, to: target)
    }
}
