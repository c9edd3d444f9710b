#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ending a stream. Control thread; not real-time safe (waits for the event consumer when its rings are full).
extension FrontEnd {
    /// Ends the stream: refuses further pushes, processes what is left (the partial last frame zero-padded),
    /// delivers the output owed (exactly floor(mic samples × output rate / mic rate) samples in all, the
    /// stream lagging the mic by ``processingDelay``: an app that needs the last mic samples' output pushes that
    /// much silence first, as `afe process` does), closes the encoder, and emits ``FrontEndEvent/finished(_:)`` after every other event. Returns the summary once
    /// the finished event has been delivered (at once when called from a delegate callback).
    /// - Throws: ``AudioFrontEndError/Code/invalidState`` when not running.
    @discardableResult
    public func finish() throws -> FrontEndSummary {
        guard lifecycle.compareExchange(expected: Lifecycle.running.rawValue, desired: Lifecycle.ended.rawValue,
                                        ordering: .acquiringAndReleasing).exchanged else {
            throw AudioFrontEndError(.invalidState, "finish() needs a running front end: call start() first, and finish() or cancel() only once")
        }
        micGate.close()
        referenceGate.close()
        // The rest of the mic ring, the resampler's tail, then the zero-padded partial frame.
        while hasMicWorkLeft {
            processAvailableMic()
            if hasMicWorkLeft { waitForRoom() }
        }
        micRing.discard(micRing.count) // a partial multi-channel frame cannot be used
        frame.didAppend(micConverter.flush(into: frame.freeSpace))
        while frame.hasFrame || frame.count > 0 {
            waitForRoom()
            let valid = frame.padToFrame()
            chain.process(frame: frame.firstFrame, validCount: min(valid, frame.frameLength),
                          isPlaying: playing.load(ordering: .acquiring))
            frame.removeFrame()
        }
        waitForRoom()
        let totalOutput = micConverter.inputCount * configuration.effectiveOutputRate / configuration.mic.sampleRate
        chain.output.finish(totalOutput: totalOutput)
        let summary = FrontEndSummary(micSamplesPushed: micConverter.inputCount,
                                      referenceSamplesPushed: referenceConverter.inputCount,
                                      framesProcessed: chain.framesProcessed, outputSamples: chain.output.outputCount,
                                      drops: dropCounts, processingDelay: processingDelay, bargeIns: chain.bargeIns)
        waitForRoom()
        eventChannel.emitFinished(summary)
        eventChannel.signal()
        drain.waitUntilFinished()
        return summary
    }

    /// Ends the stream at once: refuses further pushes, discards what was not processed, delivers the events
    /// already produced, then ends ``events`` without a finished event. Control thread. Safe to call twice.
    public func cancel() {
        let previous = lifecycle.exchange(Lifecycle.ended.rawValue, ordering: .acquiringAndReleasing)
        guard previous != Lifecycle.ended.rawValue else { return }
        micGate.close()
        referenceGate.close()
        drain.stop()
    }

    /// Waits until the drain thread has delivered its last event and ended (after ``finish()`` or ``cancel()``),
    /// so it holds the front end no more; returns at once from the drain thread itself or before ``start()``.
    /// Control thread.
    package func waitUntilDrained() { drain.waitUntilFinished() }

    /// Whether a ``FrontEndDrainHost`` drains this front end (no drain thread of its own). Any thread.
    package var hasHostedDrain: Bool { drain.isHosted }

    /// Waits until the next frame may be processed (``EventChannel/beginFrame()``: with
    /// ``FrontEndConfiguration/EventsBehind/dropAppEvents`` only for the kept events' room).
    private func waitForRoom() {
        while !eventChannel.beginFrame() {
            eventChannel.signal()
            usleep(1000)
        }
    }
}

extension FrontEndConfiguration {
    /// Checks every value; throws ``AudioFrontEndError`` naming the first problem.
    func validate() throws {
        let echoOn = echoCancellation != .off || voiceDetection != nil
        guard [8000, 16000, 48000].contains(processingRate) else {
            throw AudioFrontEndError(.unsupportedSampleRate, "the processing rate must be 16000 or 48000 Hz (8000 without echo cancellation and VAD), not \(processingRate) Hz")
        }
        if processingRate == 8000 && echoOn {
            throw AudioFrontEndError(.unsupportedSampleRate, "8000 Hz works only with echo cancellation and VAD off")
        }
        if mic.sampleRate == 8000 {
            guard !echoOn else {
                throw AudioFrontEndError(.unsupportedSampleRate, "an 8000 Hz mic works only with echo cancellation and VAD off")
            }
        } else {
            try AudioFrontEndError.check(mic.sampleRate, in: 16000...48000, "mic sample rate (Hz; 8000 only with echo cancellation and VAD off)",
                                         code: .unsupportedSampleRate)
        }
        try AudioFrontEndError.check(reference.sampleRate, in: 8000...48000, "reference sample rate (Hz)", code: .unsupportedSampleRate)
        try AudioFrontEndError.check(effectiveOutputRate, in: 8000...48000, "output sample rate (Hz)", code: .unsupportedSampleRate)
        try AudioFrontEndError.check(micBufferMilliseconds, in: 100...60000, "mic buffer (ms)")
        try AudioFrontEndError.check(referenceWindowMilliseconds, in: 1000...60000, "reference window (ms)")
        try AudioFrontEndError.check(echoTailAfterPlaybackMilliseconds, in: 0...10000, "echo tail after playback (ms)")
        if let encoding {
            guard encoding.opus.frameDuration.rawValue % 480 == 0 else {
                throw AudioFrontEndError(.invalidFrameLength, "the front end encodes Opus packets of 10, 20, 40 or 60 ms, not \(encoding.opus.frameDuration.milliseconds) ms")
            }
        }
        if case .fixed(let milliseconds) = alignment {
            try AudioFrontEndError.check(milliseconds, in: 0...(referenceWindowMilliseconds - 100), "fixed echo delay (ms)")
        }
    }
}
