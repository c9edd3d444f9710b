/// Writing events: producer side of ``EventChannel``, real-time safe. Callers check ``EventChannel/beginFrame()``
/// before a frame, so these writes always fit. The app-only ones (audio, bytes, level, telemetry) are dropped
/// and counted in a frame that ``EventChannel/beginFrame()`` admitted without room for them.
extension EventChannel {
    func emitAudio(_ audio: UnsafeBufferPointer<Int16>, position: Int) {
        guard !audio.isEmpty else { return }
        guard appEventsFit else {
            droppedAudioEnd.store(position + audio.count, ordering: .releasing)
            return dropAppEvent()
        }
        let written = samples.write(audio)
        records.write(RawEvent(.audio, position: position, payloadCount: written))
    }

    func emitBytes(_ kind: RawEvent.Kind, _ payload: UnsafeRawBufferPointer, position: Int, duration: Int = 0) {
        guard appEventsFit else { return dropAppEvent() }
        let written = bytes.write(payload.assumingMemoryBound(to: UInt8.self))
        var record = RawEvent(kind, position: position, payloadCount: written)
        record.counts.0 = duration
        records.write(record)
    }

    func emitSpeech(started: Bool, milliseconds: Int) {
        records.write(RawEvent(started ? .speechStart : .speechEnd, position: milliseconds))
    }

    func emitLevel(milliseconds: Int, input: Float, output: Float) {
        guard appEventsFit else { return dropAppEvent() }
        var record = RawEvent(.level, position: milliseconds)
        record.values.0 = Double(input)
        record.values.1 = Double(output)
        records.write(record)
    }

    func emitTelemetry(milliseconds: Int, delay: Double?, alignment: Double, erle: Double?, doubleTalk: Bool,
                       drift: Double?, processingDelay: Double) {
        guard appEventsFit else { return dropAppEvent() }
        var record = RawEvent(.telemetry, position: milliseconds)
        record.values = (delay ?? .nan, alignment, erle ?? .nan, drift ?? .nan, processingDelay)
        record.flag = doubleTalk
        records.write(record)
    }

    func emitBargeIn(_ decision: BargeInDecision) {
        var record = RawEvent(.bargeIn, position: decision.milliseconds)
        record.counts.0 = decision.speechStartMilliseconds
        record.counts.1 = decision.sequence
        record.flag = decision.isSuspicion
        records.write(record)
    }

    func emitDrops(_ drops: DropCounts) {
        reportedOverruns = drops.eventOverruns
        var record = RawEvent(.drops)
        record.counts = (drops.micRefusedBytes, drops.referenceDroppedSamples, drops.referenceMissingSamples,
                         drops.eventOverruns, drops.referenceRefusedBytes)
        records.write(record)
    }

    /// Writes the final drop counts, then the finished record (the drain pairs them into the summary).
    func emitFinished(_ summary: FrontEndSummary) {
        emitDrops(summary.drops)
        var record = RawEvent(.finished, position: summary.bargeIns)
        record.counts = (summary.micSamplesPushed, summary.referenceSamplesPushed, summary.framesProcessed,
                         summary.outputSamples, summary.processingDelay.samples)
        record.values.0 = Double(summary.processingDelay.sampleRate)
        records.write(record)
    }
}
