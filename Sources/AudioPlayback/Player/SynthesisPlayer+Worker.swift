import AudioFrontEnd
import Foundation
import Threads

/// The worker thread: input records → decoder → decoded-sample ring, stops acknowledged, events delivered.
extension SynthesisPlayer {
    /// How long the worker sleeps when there is nothing to do (it also wakes on input): the latency of event
    /// delivery and of refilling the decoded ring, ms.
    static let workerPollMilliseconds = 5

    func startWorker() {
        worker = JoinableThread(name: "AudioPlayback.worker") { [weak self] in
            while true {
                guard let player = self, !player.shutdown.load(ordering: .acquiring) else { break }
                let busy = player.workOnce()
                if !busy { _ = player.wake.wait(timeout: .now() + .milliseconds(Self.workerPollMilliseconds)) }
            }
        }
    }

    /// One round: acts on a stop, delivers render events, handles one input record. Returns whether it did work
    /// that may have more behind it.
    private func workOnce() -> Bool {
        acknowledgeStop()
        deliverRenderEvents()
        var record = InputRecord(kind: .data, utterance: 0)
        guard withUnsafeMutablePointer(to: &record, { inputRecords.peek(into: UnsafeMutableBufferPointer(start: $0, count: 1)) }) == 1 else {
            return false
        }
        switch record.kind {
        case .begin:
            workerUtterance = record.utterance
            workerSamples = 0
            // An utterance stopped before it began (a stop after its begin record was written) is dropped whole.
            if record.stopGeneration < workerStopGeneration {
                inputRecords.discard(1)
                workerDiscarding = true
                workerDecoder = nil
                deliverRenderEvents()
                deliver(.stopped(utterance: record.utterance, position: PlayedPosition(samples: 0, sampleRate: configuration.sampleRate)))
                return true
            }
            guard writeMark(isEnd: false, utterance: record.utterance, stopGeneration: record.stopGeneration) else { return false }
            inputRecords.discard(1)
            workerDiscarding = false
            do throws(PlaybackDecodeError) {
                workerDecoder = try PlaybackDecoder(format: record.format, sampleRate: record.sampleRate,
                                                    outputRate: configuration.sampleRate,
                                                    resamplerQuality: configuration.resamplerQuality)
            } catch {
                workerDecoder = nil
                deliver(.decodeFailed(utterance: record.utterance, error: error))
            }
        case .data:
            inputRecords.discard(1)
            decode(byteCount: record.byteCount)
        case .end:
            if !workerDiscarding, let decoder = workerDecoder {
                do throws(PlaybackDecodeError) {
                    try decoder.finish { write($0) }
                } catch {
                    deliver(.decodeFailed(utterance: workerUtterance, error: error))
                }
                mergeCounts(decoder)
            }
            workerDecoder = nil
            inputRecords.discard(1)
            if !workerDiscarding {
                // The end mark first: once the app hears the input ended, the render side knows where it ends
                // (no underrun counted for the last partial buffer). Its drained event, delivered by this thread,
                // still comes after.
                while !writeMark(isEnd: true, utterance: record.utterance, stopGeneration: workerStopGeneration) {
                    if !waitForRoom() { break }
                }
                deliver(.inputEnded(utterance: record.utterance, samples: workerSamples))
            }
        }
        return true
    }

    /// Decodes `byteCount` bytes of the byte ring (dropped while discarding or after a failure).
    private func decode(byteCount: Int) {
        var left = byteCount
        while left > 0 {
            let n = inputBytes.read(into: UnsafeMutableBufferPointer(rebasing: workerBytes[0..<min(left, workerBytes.count)]))
            if n == 0 { break }
            left -= n
            acknowledgeStop()
            guard !workerDiscarding, let decoder = workerDecoder else { continue }
            do throws(PlaybackDecodeError) {
                try decoder.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: workerBytes[0..<n]))) { write($0) }
            } catch {
                deliver(.decodeFailed(utterance: workerUtterance, error: error))
                mergeCounts(decoder)
                workerDecoder = nil // the rest of this utterance's bytes are dropped; its end record still ends it
                left = skipBytes(left)
            }
        }
    }

    /// Drops `count` bytes of the byte ring; returns 0.
    private func skipBytes(_ count: Int) -> Int {
        var left = count
        while left > 0 {
            let n = inputBytes.discard(left)
            if n == 0 { break }
            left -= n
        }
        return 0
    }

    /// Writes decoded samples to the ring, waiting (and delivering events) while it is full; drops them once a
    /// stop arrives.
    private func write(_ chunk: UnsafeBufferPointer<Int16>) {
        var offset = 0
        while offset < chunk.count {
            if stopGeneration.load(ordering: .acquiring) != workerStopGeneration { return }
            let written = samples.write(UnsafeBufferPointer(rebasing: chunk[offset...]))
            offset += written
            workerSamples += written
            if offset < chunk.count, !waitForRoom() { return }
        }
    }

    /// Sleeps one poll while delivering events; false when shutting down.
    private func waitForRoom() -> Bool {
        deliverRenderEvents()
        usleep(UInt32(Self.workerPollMilliseconds * 1000))
        return !shutdown.load(ordering: .acquiring)
    }

    private func writeMark(isEnd: Bool, utterance: Int, stopGeneration: Int) -> Bool {
        marks.write(UtteranceMark(index: samples.totalWritten, isEnd: isEnd, utterance: utterance, stopGeneration: stopGeneration))
    }

    /// On a new stop: drops the current utterance's decoder and queued input, and tells the render side that
    /// every sample written so far is stale.
    private func acknowledgeStop() {
        let generation = stopGeneration.load(ordering: .acquiring)
        guard generation != stopAcknowledged.load(ordering: .relaxed) else { return }
        if let decoder = workerDecoder { mergeCounts(decoder) }
        workerDecoder = nil
        workerStopGeneration = generation
        workerDiscarding = true
        // Input records up to the next begin belong to the stopped utterance: drop them and their bytes.
        var record = InputRecord(kind: .data, utterance: 0)
        while withUnsafeMutablePointer(to: &record, { inputRecords.peek(into: UnsafeMutableBufferPointer(start: $0, count: 1)) }) == 1,
              record.kind != .begin {
            if record.kind == .data { _ = skipBytes(record.byteCount) }
            inputRecords.discard(1)
        }
        skipUntil.store(samples.totalWritten, ordering: .releasing)
        stopAcknowledged.store(generation, ordering: .releasing)
    }

    private func mergeCounts(_ decoder: PlaybackDecoder) {
        let counts = decoder.decoder.counts
        decodeCountsBox.withLock {
            $0.skippedBytes += counts.skippedBytes
            $0.corruptPackets += counts.corruptPackets
            $0.lostPages += counts.lostPages
            $0.foreignPages += counts.foreignPages
            $0.errors += counts.errors
        }
    }

    /// Delivers the render side's events, in order.
    func deliverRenderEvents() {
        while let record = renderEvents.read() {
            let position = PlayedPosition(samples: record.samples, sampleRate: configuration.sampleRate)
            switch record.kind {
            case .started: deliver(.started(utterance: record.utterance))
            case .drained: deliver(.drained(utterance: record.utterance, position: position))
            case .stopped: deliver(.stopped(utterance: record.utterance, position: position))
            case .rearmed: deliver(.micRearmed(utterance: record.utterance))
            }
        }
    }

    func deliver(_ event: PlaybackEvent) {
        let handler = handler.withLock { $0 } // a class reference: the same closure at every event (EventHandlerBox)
        handler?.call(event)
    }
}
