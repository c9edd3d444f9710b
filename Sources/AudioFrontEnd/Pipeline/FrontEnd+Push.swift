import Synchronization

/// Pushing audio. Real-time safe: no allocation, no lock, no blocking, no throwing.
///
/// One push takes at most ``maximumPushMilliseconds`` of audio (``maximumMicPushSamples`` /
/// ``maximumReferencePushSamples``): a mic push processes its frames inline, so an unbounded push would hold
/// its caller for as long as processing takes (16 MB: about 10 s). A longer push takes its first second,
/// returns ``PushStatus/bufferFull`` with what it took, and counts the rest as refused (``DropCounts``); the
/// caller may push the rest again, in slices.
extension FrontEnd {
    /// The most audio one push takes, ms (of the input format's rate and channels): 1 s, which costs about
    /// 20 ms of processing on one core with the default chain. Longer pushes are taken in part (see above).
    public static let maximumPushMilliseconds = 1000

    /// The most samples (interleaved) one mic push takes: ``maximumPushMilliseconds`` at the mic format;
    /// twice as many bytes.
    public var maximumMicPushSamples: Int {
        configuration.mic.sampleRate * configuration.mic.channelCount * Self.maximumPushMilliseconds / 1000
    }

    /// The most samples one reference push takes: ``maximumPushMilliseconds`` at the reference format.
    public var maximumReferencePushSamples: Int {
        configuration.reference.sampleRate * configuration.reference.channelCount * Self.maximumPushMilliseconds / 1000
    }

    /// Pushes microphone audio as little-endian int16 bytes, interleaved when the mic has several channels
    /// (NUI's `nui_update_audio_data`). Any length: an odd byte is kept for the next push; zero is fine.
    /// Every complete 10 ms frame is processed before the call returns.
    /// - Returns: ``PushStatus/ok`` with all bytes accepted, ``PushStatus/bufferFull`` with the bytes accepted
    ///   when the event consumer falls behind or the push holds more than ``maximumMicPushSamples`` (the rest
    ///   counted in ``DropCounts/micRefusedBytes``), or ``PushStatus/notRunning`` / ``PushStatus/concurrentPush``.
    /// Mic push thread (one at a time); real-time safe.
    public func pushMic(bytes: UnsafeRawBufferPointer) -> PushResult {
        let entry = micGate.enter()
        if case .refused(let status) = entry { return PushResult(status: status, accepted: 0) }
        var processes = entry == .processing
        defer { leaveMicGate(processed: processes) }
        guard isRunning else { return PushResult(status: .notRunning, accepted: 0) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes.prefix(2 * maximumMicPushSamples))
        let accepted = decode(slice, carry: &micCarry, into: scratch) { samples in
            let taken = micRing.write(samples)
            if processes || micGate.takeProcessing() {
                processes = true
                processAvailableMic()
            }
            return taken
        }
        return finishMicPush(accepted: accepted, of: bytes.count, unit: 1)
    }

    /// Pushes microphone samples, interleaved when the mic has several channels. See ``pushMic(bytes:)``;
    /// ``PushResult/accepted`` counts samples. Mic push thread (one at a time); real-time safe.
    public func pushMic(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        let entry = micGate.enter()
        if case .refused(let status) = entry { return PushResult(status: status, accepted: 0) }
        var processes = entry == .processing
        defer { leaveMicGate(processed: processes) }
        guard isRunning else { return PushResult(status: .notRunning, accepted: 0) }
        let limit = min(samples.count, maximumMicPushSamples)
        var accepted = 0
        while accepted < limit {
            let taken = micRing.write(UnsafeBufferPointer(rebasing: samples[accepted..<limit]))
            accepted += taken
            if processes || micGate.takeProcessing() {
                processes = true
                processAvailableMic()
            }
            if taken == 0 && micRing.freeCount == 0 { break }
        }
        return finishMicPush(accepted: accepted, of: samples.count, unit: 2)
    }

    /// Pushes the reference (what the device plays) as little-endian int16 bytes (NUI's
    /// `nui_push_reference_data`). Any length up to ``maximumReferencePushSamples`` (beyond it the rest is
    /// refused, counted in ``DropCounts/referenceRefusedBytes``, and ``PushStatus/bufferFull`` returned); never
    /// refused for lack of room: when the window is full the oldest reference is dropped and counted.
    /// Reference push thread (one at a time); real-time safe.
    public func pushReference(bytes: UnsafeRawBufferPointer) -> PushResult {
        if let refused = referenceGate.enter() { return PushResult(status: refused, accepted: 0) }
        defer { referenceGate.leave() }
        guard isRunning else { return PushResult(status: .notRunning, accepted: 0) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes.prefix(2 * maximumReferencePushSamples))
        let accepted = decode(slice, carry: &referenceCarry, into: referenceBytesScratch) { samples in
            appendReference(samples)
            return samples.count
        }
        return finish(accepted: accepted, of: bytes.count, unit: 1, refused: referenceRefusedBytes)
    }

    /// Pushes reference samples. See ``pushReference(bytes:)``; ``PushResult/accepted`` counts samples.
    /// Reference push thread (one at a time); real-time safe.
    public func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        if let refused = referenceGate.enter() { return PushResult(status: refused, accepted: 0) }
        defer { referenceGate.leave() }
        guard isRunning else { return PushResult(status: .notRunning, accepted: 0) }
        let limit = min(samples.count, maximumReferencePushSamples)
        appendReference(UnsafeBufferPointer(rebasing: samples[..<limit]))
        return finish(accepted: limit, of: samples.count, unit: 2, refused: referenceRefusedBytes)
    }

    /// Leaves the mic gate; when frames are left behind (the event rings were full, or the drain thread was
    /// processing), flags them and wakes the drain thread, which processes them once it has made room.
    private func leaveMicGate(processed: Bool) {
        let workLeft = processed && hasMicWorkLeft
        if micGate.leave(processed: processed, workLeft: workLeft) { eventChannel.signal() }
    }

    /// Whether the mic ring holds at least one whole sample frame or a complete 10 ms frame waits to be processed.
    /// Whoever holds the mic gate's processing; real-time safe.
    var hasMicWorkLeft: Bool { frame.hasFrame || micRing.count >= micConverter.channelCount }

    private func finishMicPush(accepted: Int, of total: Int, unit: Int) -> PushResult {
        finish(accepted: accepted, of: total, unit: unit, refused: micRefusedBytes)
    }

    /// The result of a push that took `accepted` of `total` units (`unit` bytes each); the rest counted in `refused`.
    private func finish(accepted: Int, of total: Int, unit: Int, refused: borrowing Atomic<Int>) -> PushResult {
        guard accepted < total else { return PushResult(status: .ok, accepted: accepted) }
        refused.add((total - accepted) * unit, ordering: .relaxed)
        return PushResult(status: .bufferFull, accepted: accepted)
    }

    /// Converts little-endian bytes (after a carried half sample) into int16 chunks and hands each to `sink`,
    /// which returns how many samples it took. Returns the bytes consumed.
    private func decode(_ bytes: UnsafeRawBufferPointer, carry: inout ByteCarry,
                        into scratch: UnsafeMutableBufferPointer<Int16>,
                        sink: (UnsafeBufferPointer<Int16>) -> Int) -> Int {
        var consumed = 0
        let chunk = scratch.count
        while consumed < bytes.count {
            var n = 0
            var offset = consumed
            if carry.isPresent {
                scratch[0] = Int16(bitPattern: UInt16(carry.byte) | UInt16(bytes[offset]) << 8)
                n = 1
                offset += 1
            }
            let whole = min((bytes.count - offset) / 2, chunk - n)
            for i in 0..<whole {
                scratch[n + i] = Int16(bitPattern: UInt16(bytes[offset + 2 * i]) | UInt16(bytes[offset + 2 * i + 1]) << 8)
            }
            n += whole
            let taken = n == 0 ? 0 : sink(UnsafeBufferPointer(rebasing: scratch[0..<n]))
            // Bytes behind the samples taken: the carried half sample counts one byte.
            let carriedTaken = carry.isPresent && taken > 0
            consumed += taken * 2 - (carriedTaken ? 1 : 0)
            if carriedTaken { carry.isPresent = false }
            if taken < n { return consumed }
            let left = bytes.count - consumed
            if left == 1 {
                carry = ByteCarry(byte: bytes[consumed], isPresent: true)
                return bytes.count
            }
            if n == 0 { break }
        }
        return consumed
    }

    /// Says that the reference is a player's, pushed as it is played: its first sample is placed at the mic's
    /// position when it arrives (`ReferenceHistory.anchorFirstSample(at:)`), not at 0. Call it before the first
    /// reference push; without it the reference starts with the mic (an app pushing both streams from a file, in
    /// step: a mic push that wins the first race must not move the reference later). A player running before the
    /// front end (NeoNui's first dialog) otherwise splits a buffer: its reference refused, its echo taken as mic,
    /// so the next reference, placed at 0, belongs a buffer later and every read finds it missing until the late
    /// reads re-anchor it (0.5-0.8 s). Any thread; real-time safe.
    package func startReferenceAtMic() {
        if !referenceStartsAtMic.load(ordering: .relaxed) { referenceStartsAtMic.store(true, ordering: .relaxed) }
    }

    /// Converts and appends reference samples (the first one at the mic's position after
    /// ``startReferenceAtMic()``). Reference push thread; real-time safe.
    private func appendReference(_ samples: UnsafeBufferPointer<Int16>) {
        var offset = 0
        let step = referenceConverter.maximumFrames * referenceConverter.channelCount
        while offset < samples.count {
            let end = min(samples.count, offset + step)
            let produced = referenceConverter.convert(UnsafeBufferPointer(rebasing: samples[offset..<end]),
                                                      into: referenceScratch)
            if produced > 0 && !references.hasAppended && referenceStartsAtMic.load(ordering: .relaxed) {
                references.anchorFirstSample(at: micPosition)
            }
            references.append(UnsafeBufferPointer(rebasing: referenceScratch[0..<produced]))
            offset = end
        }
    }

    /// The mic samples taken so far, at the processing rate (rounded down: never after the mic's true position).
    /// Any thread; real-time safe.
    var micPosition: Int {
        micRing.totalWritten / micConverter.channelCount * configuration.processingRate / configuration.mic.sampleRate
    }

    /// The drain thread, after delivering: processes the frames a push left in the mic ring (the event rings
    /// were full, or the push came while the drain was processing), when no push is inside. In a front end that
    /// outlives dialogs (VoiceRecognition's engine, NeoNui) they waited for the next push before, and could fall after
    /// a dialog's end: audio accepted and not delivered to it. Stops after the frame in hand when a push comes
    /// in (the push takes the processing over). Drain thread; never blocks.
    func processMicLeftBehind() {
        while eventChannel.admitsFrame && micGate.takeLeftBehind() {
            let before = chain.framesProcessed
            processAvailableMic(yieldingToPush: true)
            framesProcessedByDrain.add(chain.framesProcessed - before, ordering: .relaxed)
            micGate.releaseProcessing(workLeft: hasMicWorkLeft)
        }
    }

    /// Processes every complete frame the mic ring holds while the event rings have room (with
    /// ``FrontEndConfiguration/EventsBehind/dropAppEvents``: room for the kept events) (and, with
    /// `yieldingToPush`, until a push enters the gate). By whoever holds the mic gate's processing: a push, the
    /// drain thread, or the control thread in `finish` after the gate closed; real-time safe.
    func processAvailableMic(yieldingToPush: Bool = false) {
        var processedAny = false
        while eventChannel.beginFrame() {
            if yieldingToPush && micGate.hasPushInside { break }
            if frame.hasFrame {
                let isPlaying = playing.load(ordering: .acquiring)
                references.countsMissing = isPlaying
                chain.process(frame: frame.firstFrame, isPlaying: isPlaying)
                frame.removeFrame()
                processedAny = true
                continue
            }
            let channels = micConverter.channelCount
            let available = min(micRing.count / channels, micConverter.maximumFrames) * channels
            guard available > 0, frame.freeSpace.count >= micConverter.maximumOutput else { break }
            let read = micRing.read(into: UnsafeMutableBufferPointer(rebasing: micScratch[0..<available]))
            frame.didAppend(micConverter.convert(UnsafeBufferPointer(rebasing: micScratch[0..<read]), into: frame.freeSpace))
        }
        if processedAny {
            references.publishConsumerPosition(chain.framesProcessed * chain.frameLength)
            chain.reportDrops(eventChannel.reportable(dropCounts))
            eventChannel.signal()
        }
    }
}
