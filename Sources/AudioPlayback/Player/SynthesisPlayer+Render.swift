import AudioFrontEnd

/// The render side: decoded samples → volume → the device's buffer, and the same buffer to the front end's
/// reference. Real-time safe: no allocation, no lock, no Foundation, no blocking.
extension SynthesisPlayer {
    /// Fills `buffer` (interleaved, ``PlaybackConfiguration/channelCount`` channels, any length) with what plays
    /// next, and pushes exactly that buffer to the front end's reference before returning — every buffer, the
    /// silence between utterances and after a stop included, so the reference stays sample-aligned with the mic
    /// (the front end places reference by sample position). Silence when nothing plays; during an utterance,
    /// missing audio is filled with silence and counted (``PlaybackCounts/underrunFrames``). A ``stop()`` takes
    /// effect at the start of the next call. (A trailing part of a frame, when `buffer.count` is not a multiple
    /// of the channels, is zeroed and not pushed.)
    ///
    /// The device's audio thread (one thread only, the same throughout); real-time safe.
    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) {
        let channels = configuration.channelCount
        var offset = 0
        while offset + channels <= buffer.count {
            let frames = min((buffer.count - offset) / channels, configuration.maximumRenderFrames)
            renderPiece(UnsafeMutableBufferPointer(rebasing: buffer[offset..<(offset + frames * channels)]), frames: frames)
            offset += frames * channels
        }
        for i in offset..<buffer.count { buffer[i] = 0 }
        renderedFrames.add(buffer.count / channels, ordering: .relaxed)
    }

    private func renderPiece(_ out: UnsafeMutableBufferPointer<Int16>, frames: Int) {
        guard handleStop() else {
            silence(out, frames: frames)
            pushReference(out)
            reportPlaying(false)
            return
        }
        var filled = 0
        var mark = UtteranceMark(index: 0, isEnd: false, utterance: 0, stopGeneration: 0)
        while filled < frames {
            let hasMark = peekMark(&mark)
            let read = samples.totalRead
            if hasMark, mark.index <= read {
                marks.discard(1)
                if mark.isEnd {
                    if renderActive, mark.utterance == renderUtterance {
                        // Its last sample is in this buffer; the next utterance may begin in the same buffer.
                        renderActive = false
                        emit(.drained, renderUtterance, renderPosition)
                        renderRearmCountdown = rearmFrames + filled // counted from its last sample: this buffer's rest counts
                        renderRearmUtterance = renderUtterance
                    }
                } else {
                    renderActive = true
                    renderStarted = false
                    renderUtterance = mark.utterance
                    renderPosition = 0
                    renderRearmCountdown = -1
                    currentUtterance.store(mark.utterance, ordering: .relaxed)
                    // Not playing yet: play_start goes with the utterance's first sample (below), not with its
                    // begin, which may come many buffers before the server's first audio.
                }
                continue
            }
            let limit = hasMark ? mark.index - read : Int.max
            let available = min(samples.count, limit, frames - filled)
            guard available > 0 else { break }
            let n = samples.read(into: UnsafeMutableBufferPointer(rebasing: renderMono[filled..<(filled + available)]))
            if renderActive && !renderStarted {
                renderStarted = true
                emit(.started, renderUtterance, 0)
                reportPlaying(true) // before this buffer's reference push: play_start with the first sample
            }
            renderPosition += n
            filled += n
        }
        if filled < frames {
            for i in filled..<frames { renderMono[i] = 0 }
            if renderActive { underrunFrames.add(frames - filled, ordering: .relaxed) }
        }
        applyVolume(into: out, frames: frames)
        pushReference(out) // idle silence too: see render(into:)
        positionSamples.store(renderPosition, ordering: .releasing)
        reportPlaying(renderActive && renderStarted)
        countRearm(frames: frames)
    }

    /// Tells the reference sink that playback started or ended, once per change: playing while this player's
    /// speech (`speaking`) or the app's own sound (``ReferenceMix/isAppPlaying``) plays.
    private func reportPlaying(_ speaking: Bool) {
        let isPlaying = speaking || appReference.isAppPlaying
        guard isPlaying != renderReportedPlaying else { return }
        renderReportedPlaying = isPlaying
        reference?.setPlaying(isPlaying)
    }

    /// Acts on a ``stop()``: reports it once, then hands out silence until the worker has marked what is stale,
    /// which is then dropped. Returns whether rendering may go on.
    private func handleStop() -> Bool {
        let generation = stopGeneration.load(ordering: .acquiring)
        guard generation != renderStopGeneration else { return true }
        if renderActive {
            renderActive = false
            reportPlaying(false)
            emit(.stopped, renderUtterance, renderPosition)
            renderRearmCountdown = rearmFrames
            renderRearmUtterance = renderUtterance
        }
        guard stopAcknowledged.load(ordering: .acquiring) >= generation else { return false }
        let until = skipUntil.load(ordering: .acquiring)
        let read = samples.totalRead
        if until > read { samples.discard(until - read) }
        var mark = UtteranceMark(index: 0, isEnd: false, utterance: 0, stopGeneration: 0)
        while peekMark(&mark), mark.stopGeneration < generation || mark.index < until {
            marks.discard(1)
            // An utterance queued behind the stopped one (its begin not yet reached) never plays: it stops at 0.
            if !mark.isEnd { emit(.stopped, mark.utterance, 0) }
        }
        renderStopGeneration = generation
        return true
    }

    private func silence(_ out: UnsafeMutableBufferPointer<Int16>, frames: Int) {
        for i in 0..<out.count { out[i] = 0 }
        countRearm(frames: frames)
        renderClock += frames
    }

    private func countRearm(frames: Int) {
        guard renderRearmCountdown >= 0, !renderActive else { return }
        renderRearmCountdown -= frames
        if renderRearmCountdown <= 0 {
            renderRearmCountdown = -1
            emit(.rearmed, renderRearmUtterance, 0)
        }
    }

    private func peekMark(_ mark: inout UtteranceMark) -> Bool {
        withUnsafeMutablePointer(to: &mark) { marks.peek(into: UnsafeMutableBufferPointer(start: $0, count: 1)) == 1 }
    }

    /// `renderMono` × volume × the duck into `out`, each sample repeated over the channels. The duck's gain
    /// moves linearly over the piece when it starts or ends in it (no click).
    private func applyVolume(into out: UnsafeMutableBufferPointer<Int16>, frames: Int) {
        let gain = Float(bitPattern: volumeBits.load(ordering: .relaxed))
        let ducked = renderClock < duckUntilFrame.load(ordering: .relaxed)
        let duckTarget = ducked ? Float(bitPattern: duckGainBits.load(ordering: .relaxed)) : 1
        let duckStart = renderDuckGain
        renderDuckGain = duckTarget
        renderClock += frames
        let channels = configuration.channelCount
        let step = (duckTarget - duckStart) / Float(max(1, frames))
        for frame in 0..<frames {
            let total = duckStart == duckTarget ? gain * duckTarget : gain * (duckStart + step * Float(frame + 1))
            let sample = total == 1 ? renderMono[frame] : Int16((Float(renderMono[frame]) * total).rounded())
            for c in 0..<channels { out[frame * channels + c] = sample }
        }
    }

    /// `out` plus the app's own sounds (``appReference``) to the reference sink; without a sink the app's sounds
    /// are still consumed (and counted), so they do not pile up.
    private func pushReference(_ out: UnsafeMutableBufferPointer<Int16>) {
        let mixed = UnsafeMutableBufferPointer(rebasing: renderReference[0..<out.count])
        _ = mixed.update(fromContentsOf: out)
        appReference.mix(into: mixed)
        guard let reference else { return }
        let result = reference.pushReference(samples: UnsafeBufferPointer(mixed))
        referenceSamplesPushed.add(result.accepted, ordering: .relaxed)
        if result.accepted < out.count { refusedReferenceSamples.add(out.count - result.accepted, ordering: .relaxed) }
    }

    private func emit(_ kind: RenderEventRecord.Kind, _ utterance: Int, _ samples: Int) {
        if !renderEvents.write(RenderEventRecord(kind: kind, utterance: utterance, samples: samples)) {
            droppedEvents.add(1, ordering: .relaxed)
        }
    }
}
