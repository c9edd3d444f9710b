/// Turns per-frame speech decisions into speech start and end events, like NUI's VAD segmentation.
///
/// Driven only by the count of 10 ms frames fed to ``process(isSpeech:)`` (frame `n` covers samples
/// `n × frameLength ..< (n + 1) × frameLength`), so its timing is exact and repeatable:
/// - **Start**: after ``Configuration/onsetMilliseconds`` of consecutive speech frames. The event is emitted on
///   the frame that completes the run and is back-dated to the run's first frame.
/// - **End**: after ``Configuration/endSilenceMilliseconds`` (NUI's `max_sentence_silence`) without speech. The
///   event is emitted on the frame that completes the silence and is back-dated to the end of the last speech
///   frame. A shorter gap keeps the segment open.
/// - **Blips**: a run of speech frames shorter than the onset neither starts a segment nor, inside one, counts as
///   speech: it does not extend the segment or restart the silence (when a blip straddles the end of the silence,
///   the end is emitted when the blip stops). Speech that continues without a gap always counts.
/// - **Edges** (the front end's ``FrontEndConfiguration/SpeechEdges``, outside playback): a start is back-dated
///   over the frames just before it that stood above a lower threshold, an end moved past the last speech frame
///   over those after it (speech frames, blips included, count as such frames), within the front end's limits.
/// - **Started from outside** (the front end's barge-in decision, ``FrontEndConfiguration/EchoGate/startsOnBargeIn``):
///   a segment opens at once, back-dated by what the caller says, never into the previous segment.
/// - **Maximum length** (optional): a segment reaching ``Configuration/maximumSegmentMilliseconds`` ends on that
///   frame; if speech goes on, the next speech frame starts a new segment at once (no onset needed).
///
/// Segments are half-open: `[start, end)`. A value type with no storage beyond its fields: every call is
/// real-time safe (no allocation, locks or system calls). One thread at a time.
public struct SpeechSegmenter: Sendable {
    /// Settings of ``SpeechSegmenter``. Durations are in milliseconds and must be whole 10 ms frames.
    public struct Configuration: Hashable, Sendable {
        /// Sample rate in Hz of the stage the decisions come from (sets sample positions), 8000–48000 with whole
        /// 10 ms frames. Default 16000.
        public var sampleRate: Int = 16000
        /// Consecutive speech needed to start a segment (and to count as speech after a gap), 10...500 ms.
        /// Default 100 (shorter onsets let babble bursts from ``WebRTCVoiceActivityDetector`` start segments).
        public var onsetMilliseconds: Int = 100
        /// Silence that ends a segment (NUI's `max_sentence_silence`), 200...6000 ms. Default 1300 (NUI's default).
        public var endSilenceMilliseconds: Int = 1300
        /// Longest segment before it is split, nil for no limit, else 1000...3 600 000 ms. Default nil
        /// (NUI's `multi_threshold_mode_enabled` off).
        public var maximumSegmentMilliseconds: Int? = nil

        /// The defaults, with any setting given.
        public init(sampleRate: Int = 16000, onsetMilliseconds: Int = 100, endSilenceMilliseconds: Int = 1300,
                    maximumSegmentMilliseconds: Int? = nil) {
            self.sampleRate = sampleRate
            self.onsetMilliseconds = onsetMilliseconds
            self.endSilenceMilliseconds = endSilenceMilliseconds
            self.maximumSegmentMilliseconds = maximumSegmentMilliseconds
        }

        /// Throws ``AudioFrontEndError`` naming the first setting out of range.
        func validate() throws {
            _ = try SampleRates.frameLength(sampleRate, for: "SpeechSegmenter")
            try AudioFrontEndError.check(onsetMilliseconds, in: 10...500, "onsetMilliseconds")
            try AudioFrontEndError.checkMultiple(onsetMilliseconds, of: 10, "onsetMilliseconds")
            try AudioFrontEndError.check(endSilenceMilliseconds, in: 200...6000,
                                         "endSilenceMilliseconds (max_sentence_silence)")
            try AudioFrontEndError.checkMultiple(endSilenceMilliseconds, of: 10, "endSilenceMilliseconds")
            if let maximum = maximumSegmentMilliseconds {
                try AudioFrontEndError.check(maximum, in: 1000...3_600_000, "maximumSegmentMilliseconds")
                try AudioFrontEndError.checkMultiple(maximum, of: 10, "maximumSegmentMilliseconds")
            }
        }
    }

    /// A point in the stream, at a 10 ms frame boundary.
    public struct Position: Hashable, Sendable, CustomStringConvertible {
        /// Index of the frame that begins here (frames counted from 0 since creation or ``reset()``).
        public let frame: Int
        /// The same point in samples at the configured rate.
        public let sample: Int
        /// The same point in milliseconds (`frame × 10`).
        public var milliseconds: Int { frame * 10 }

        public var description: String { "\(milliseconds) ms (sample \(sample))" }
    }

    /// Why a segment ended.
    public enum EndReason: Hashable, Sendable {
        /// ``Configuration/endSilenceMilliseconds`` of silence followed the speech.
        case silence
        /// The segment reached ``Configuration/maximumSegmentMilliseconds``.
        case maximumLength
        /// ``finish()`` was called with the segment open.
        case endOfStream
    }

    /// A segment boundary. `at` is where speech began or ended (back-dated); `detectedAt` is the end of the frame
    /// whose decision produced the event (the earliest moment it could be known).
    public enum Event: Hashable, Sendable {
        case speechStart(at: Position, detectedAt: Position)
        case speechEnd(at: Position, detectedAt: Position, reason: EndReason)
    }

    private enum State: Hashable, Sendable {
        case idle
        /// `start`: where the segment will begin (the first frame, or earlier when back-dated); `frames`: speech
        /// frames so far; `misses`: frames without speech since `firstFrame`; `strong`: speech frames so far with
        /// strong evidence (``Onset/strongFrames``).
        case onset(firstFrame: Int, start: Int, frames: Int, misses: Int, strong: Int)
        /// `speechEnd`: end of the last speech counted; `run`: first frame of a speech run after a gap that is
        /// still shorter than the onset.
        case speech(start: Int, speechEnd: Int, run: Int?)
        /// A segment was split at its maximum length while speech went on.
        case split
    }

    public let configuration: Configuration
    /// Samples in one 10 ms frame.
    public let frameLength: Int
    private let onsetFrames: Int
    private let endSilenceFrames: Int
    private let maximumFrames: Int
    private var state = State.idle
    private var nextFrame = 0
    /// First frame of the detector's current run of speech frames (``process(isSpeech:detectorSpeech:onset:)``).
    private var detectorRunStart: Int?
    /// First frame of the first onset that broke on its misses after three quarters of its speech frames, within the
    /// detector's current run (nil: none, or a segment started since): an onset tried again within the same run
    /// back-dates from there, so a start does not depend on whether the gate dropped one frame more or less of
    /// the talker.
    private var detectorRunOnset: Int?
    /// End of the last segment: a back-dated start never reaches before it.
    private var lastSegmentEnd = 0
    /// First frame of the current run of frames that were speech or above the edge threshold (`edge`), for
    /// ``Onset/leadFrames``.
    private var edgeRunStart: Int?
    /// Frames below the edge threshold since the last one above it (``Onset/edgeGapFrames``).
    private var edgeGap = 0
    /// Where an open segment ends once its silence is complete: its last speech frame's end, moved on over the
    /// frames after it above the edge threshold (``Onset/trailFrames``).
    private var trailEnd = 0

    /// Creates a segmenter.
    /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` (end silence outside 200...6000 ms, a duration
    ///   not in whole 10 ms frames, ...) or ``AudioFrontEndError/Code/unsupportedSampleRate``, naming the problem.
    public init(_ configuration: Configuration = Configuration()) throws {
        try configuration.validate()
        self.configuration = configuration
        frameLength = configuration.sampleRate / 100
        onsetFrames = configuration.onsetMilliseconds / 10
        endSilenceFrames = configuration.endSilenceMilliseconds / 10
        maximumFrames = (configuration.maximumSegmentMilliseconds ?? Int.max) / 10
    }

    /// Frames fed so far: the next frame's index.
    public var framesProcessed: Int { nextFrame }
    /// True while a segment is open (started and not yet ended).
    public var isInSegment: Bool {
        if case .speech = state { return true }
        return false
    }

    /// Feeds the decision for the next 10 ms frame and returns the event it completes, if any.
    /// At most one event per frame. Real-time safe. One thread at a time.
    public mutating func process(isSpeech: Bool) -> Event? {
        process(isSpeech: isSpeech, detectorSpeech: isSpeech, onset: Onset(frames: onsetFrames))
    }

    /// How a segment may start on one frame: the front end's echo speech gate asks for a longer onset that
    /// tolerates a few rejected frames while the far end plays, and back-dates starts over the detector's run.
    struct Onset {
        /// Speech frames needed to start a segment (and to count as speech after a gap).
        var frames: Int
        /// Frames without speech an onset survives (counted from its first frame), 0 for consecutive speech.
        var misses = 0
        /// How far a start may be back-dated before the onset's first frame over the detector's own run of
        /// speech frames (`detectorSpeech`), frames; never before the end of the previous segment. When an onset
        /// broke on its misses after three quarters of its frames and a new one starts within the same detector run,
        /// the limit counts from the broken onset's first frame.
        var backdateFrames = 0
        /// Speech frames with strong evidence (`strongEvidence` of ``SpeechSegmenter/process(isSpeech:detectorSpeech:onset:strongEvidence:edge:)``)
        /// that complete an onset before ``frames`` speech frames, 0 for never.
        var strongFrames = 0
        /// How far a start may be back-dated over the frames just before it that were above the edge threshold
        /// (`edge`), frames; never before the end of the previous segment (``FrontEndConfiguration/SpeechEdges``).
        var leadFrames = 0
        /// How far a segment's end may move past its last speech frame over the frames after it above the edge
        /// threshold, frames.
        var trailFrames = 0
        /// Frames below the edge threshold a lead or trail run survives.
        var edgeGapFrames = 0
    }

    /// ``process(isSpeech:)`` with this frame's onset rule; `detectorSpeech` is the detector's decision before
    /// any gate (for back-dating); `strongEvidence`: the frame, when speech, counts towards ``Onset/strongFrames``;
    /// `edge`: the frame stands above the edge threshold (``Onset/leadFrames``, ``Onset/trailFrames``).
    /// Real-time safe.
    mutating func process(isSpeech: Bool, detectorSpeech: Bool, onset: Onset, strongEvidence: Bool = false,
                          edge: Bool = false) -> Event? {
        let strong = isSpeech && strongEvidence ? 1 : 0
        let n = nextFrame
        nextFrame += 1
        if detectorSpeech {
            detectorRunStart = detectorRunStart ?? n
        } else {
            detectorRunStart = nil
            detectorRunOnset = nil
        }
        // Edge runs are tracked only while the search runs (a lead limit), so nothing else changes without it.
        if onset.leadFrames > 0 && (edge || isSpeech) {
            edgeRunStart = edgeRunStart ?? n
            edgeGap = 0
        } else if onset.leadFrames > 0 && edgeGap < onset.edgeGapFrames && edgeRunStart != nil {
            edgeGap += 1
        } else {
            edgeRunStart = nil
            edgeGap = 0
        }
        switch state {
        case .idle:
            guard isSpeech else { return nil }
            let detectorStart = max(min(n, detectorRunStart ?? n), (detectorRunOnset ?? n) - onset.backdateFrames)
            let edgeStart = max(edgeRunStart ?? n, n - onset.leadFrames)
            let start = max(min(detectorStart, edgeStart), lastSegmentEnd)
            return startIfOnsetComplete(firstFrame: n, start: start, frames: 1, misses: 0, strong: strong, current: n,
                                        onset: onset)
        case .onset(let first, let start, let frames, let misses, let strongSoFar):
            guard isSpeech else {
                if misses < onset.misses {
                    state = .onset(firstFrame: first, start: start, frames: frames, misses: misses + 1, strong: strongSoFar)
                } else {
                    state = .idle
                    // Most of an onset heard within a detector run that goes on: a talker the gate dropped
                    // too often, not a burst of echo (which mostly stays short). Three quarters, not half: on the
                    // tuning half, half back-dated the reverberant kitchen's leaks further (echo_rt09 false-active
                    // 9.6 % -> 16.8 %; three quarters: 11.3 %).
                    if detectorSpeech && 4 * frames >= 3 * onset.frames { detectorRunOnset = detectorRunOnset ?? first }
                }
                return nil
            }
            return startIfOnsetComplete(firstFrame: first, start: start, frames: frames + 1, misses: misses,
                                        strong: strongSoFar + strong, current: n, onset: onset)
        case .split:
            guard isSpeech else {
                state = .idle
                return nil
            }
            state = .speech(start: n, speechEnd: n + 1, run: nil)
            trailEnd = n + 1
            return .speechStart(at: position(n), detectedAt: position(n + 1))
        case .speech(let start, var speechEnd, var run):
            if !isSpeech {
                run = nil
            } else if speechEnd == n {
                speechEnd = n + 1 // speech goes on
            } else {
                let first = run ?? n // speech after a gap counts once it lasts the onset
                run = n + 1 - first >= onset.frames ? nil : first
                if run == nil { speechEnd = n + 1 }
            }
            if speechEnd == n + 1 {
                trailEnd = speechEnd
            } else if (edge || isSpeech) && n - trailEnd <= onset.edgeGapFrames && n - speechEnd < onset.trailFrames {
                trailEnd = n + 1
            }
            if n + 1 - start >= maximumFrames {
                lastSegmentEnd = speechEnd
                state = speechEnd == n + 1 ? .split
                    : run.map { .onset(firstFrame: $0, start: $0, frames: n + 1 - $0, misses: 0, strong: 0) } ?? .idle
                return .speechEnd(at: position(speechEnd), detectedAt: position(n + 1), reason: .maximumLength)
            }
            // Silence lasts until a speech run starts (so a pending run never ends the segment); a run that stays
            // shorter than the onset is counted as silence once it stops, so the end may then be found late.
            if (run ?? n + 1) - speechEnd >= endSilenceFrames {
                let end = max(speechEnd, trailEnd)
                lastSegmentEnd = end
                state = .idle
                return .speechEnd(at: position(end), detectedAt: position(n + 1), reason: .silence)
            }
            state = .speech(start: start, speechEnd: speechEnd, run: run)
            return nil
        }
    }

    /// Opens a segment after the frame just fed, unless one is open: it begins `framesBack` frames before that
    /// frame (never before the previous segment's end) and counts that frame as its last speech so far. For a
    /// decision made outside the segmenter that speech has begun (the front end's barge-in decision,
    /// ``FrontEndConfiguration/EchoGate/startsOnBargeIn``); an onset in progress is replaced (its start kept when
    /// earlier); nothing right after a split at the maximum length (the next speech frame opens a segment), and
    /// never reaching back over the maximum length. Real-time safe.
    mutating func startSegment(framesBack: Int) -> Event? {
        // After a split at the maximum length the next speech frame opens a segment anyway.
        guard nextFrame > 0, !isInSegment, state != .split else { return nil }
        let current = nextFrame - 1
        var start = current - max(0, framesBack)
        // An onset under way already knows an earlier start (its own back-dating).
        if case .onset(_, let onsetStart, _, _, _) = state { start = min(start, onsetStart) }
        // Shorter than the maximum length (the frames so far are start...current), so a segment opened fully
        // back-dated is split for its length on the next frame at the earliest; then after the previous segment.
        start = max(start, current - (maximumFrames - 2))
        return open(start: min(current, max(start, lastSegmentEnd)), current: current)
    }

    /// Ends the stream: closes an open segment at the end of its last speech frame. Real-time safe.
    /// The frame count continues; call ``reset()`` to count from 0 again.
    public mutating func finish() -> Event? {
        defer { state = .idle }
        guard case .speech(_, let speechEnd, _) = state else { return nil }
        let end = max(speechEnd, trailEnd)
        lastSegmentEnd = end
        return .speechEnd(at: position(end), detectedAt: position(nextFrame), reason: .endOfStream)
    }

    /// Forgets any open segment and counts frames from 0 again. Real-time safe.
    public mutating func reset() {
        state = .idle
        nextFrame = 0
        detectorRunStart = nil
        detectorRunOnset = nil
        lastSegmentEnd = 0
        edgeRunStart = nil
        edgeGap = 0
        trailEnd = 0
    }

    private mutating func startIfOnsetComplete(firstFrame: Int, start: Int, frames: Int, misses: Int, strong: Int,
                                               current: Int, onset: Onset) -> Event? {
        guard frames >= onset.frames || (onset.strongFrames > 0 && strong >= onset.strongFrames) else {
            state = .onset(firstFrame: firstFrame, start: start, frames: frames, misses: misses, strong: strong)
            return nil
        }
        return open(start: start, current: current)
    }

    /// Opens a segment from `start` whose last speech so far is frame `current`.
    private mutating func open(start: Int, current: Int) -> Event {
        state = .speech(start: start, speechEnd: current + 1, run: nil)
        trailEnd = current + 1
        detectorRunOnset = nil
        return .speechStart(at: position(start), detectedAt: position(current + 1))
    }

    private func position(_ frame: Int) -> Position { Position(frame: frame, sample: frame * frameLength) }
}
