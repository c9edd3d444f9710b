/// Near-end transparency while nothing plays: once the reference has been silent for longer than the echo can
/// last, the front end delivers the mic as it came in (delayed like the cancellers' output) instead of the
/// cancellers' output, which still runs (its filters and the speech gate keep their state) but, with nothing to
/// cancel, only costs the talker (on the scenario matrix's near-end-only scenes the default chain's WER was
/// above the raw mic's in four of five rooms). Playback resuming switches back to the cancellers' output at
/// once; going transparent fades over ``rampFrames``.
///
/// Real-time safe; processing thread.
struct NearEndTransparency {
    /// A reference frame at or below this level (dBFS) counts as silent. Far below the speech gate's −50 dBFS:
    /// a quiet reference still makes a faint echo, only a silent one makes none.
    static let silentReferenceDecibels: Float = -70
    /// Frames the fade from the cancellers' output to the mic takes.
    let rampFrames: Int
    /// How long the echo follows the aligned reference (the room's tail), frames.
    let tailFrames: Int
    private var framesSinceAligned = Int.max / 2
    private var framesSinceUnaligned = Int.max / 2
    /// The mic's share of the output at the end of the last frame, 0...1.
    private(set) var micShare: Float = 1

    init(tailMilliseconds: Int, rampMilliseconds: Int = 100) {
        tailFrames = tailMilliseconds / 10
        rampFrames = max(1, rampMilliseconds / 10)
    }

    /// Takes the levels (dBFS) of this frame's aligned reference (what the cancellers get) and of the reference
    /// as played at the mic's position (nil when there is no delay estimator: then the alignment is given),
    /// and how long the echo may lag that unaligned reference, frames (the delay estimate, or the largest delay
    /// while there is none). Returns the mic's share at the start and at the end of this frame.
    mutating func update(aligned: Float, unaligned: Float?, lagFrames: Int) -> (start: Float, end: Float) {
        framesSinceAligned = aligned > Self.silentReferenceDecibels ? 0 : framesSinceAligned + 1
        if let unaligned {
            framesSinceUnaligned = unaligned > Self.silentReferenceDecibels ? 0 : framesSinceUnaligned + 1
        } else {
            framesSinceUnaligned = framesSinceAligned
        }
        let start = micShare
        let silent = framesSinceAligned > tailFrames && framesSinceUnaligned > tailFrames + lagFrames
        micShare = silent ? min(1, micShare + 1 / Float(rampFrames)) : 0
        return (silent ? start : 0, micShare)
    }

    /// Mixes `mic` into `output` with the mic's share moving linearly from `share.start` to `share.end` over the
    /// frame. Leaves `output` alone when the share is 0 throughout.
    static func mix(mic: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>,
                    share: (start: Float, end: Float)) {
        guard share.start > 0 || share.end > 0 else { return }
        if share.start >= 1 && share.end >= 1 {
            _ = output.update(fromContentsOf: mic)
            return
        }
        let step = (share.end - share.start) / Float(output.count)
        for i in 0..<output.count {
            let a = share.start + step * Float(i + 1)
            let value = a * Float(mic[i]) + (1 - a) * Float(output[i])
            output[i] = SampleConversion.clippedInt16(value)
        }
    }
}
