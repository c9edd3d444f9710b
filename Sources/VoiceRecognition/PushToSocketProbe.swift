import AudioFrontEnd
import Dispatch
import Foundation
import SpeechStreaming

/// Measures the real-time path from a mic push to the socket (issue 13): runs one dialog against a server and
/// counts, with the caller's per-thread counters, what the mic push thread does over the pushes after warm-up and
/// what the network thread's audio path does over 40 audio frames (its eventfd wake-ups and write callbacks: the
/// ring, the Ogg muxer, the replay buffer, `lws_write`), apart from what it does meanwhile for the server's messages
/// (the receive path, which allocates per message: JSON, events) and in lws's own loop. For `PushToSocketTests` (debug) and `afe-soak path` (the release
/// build), which pass the allocation and lock counters of `Tests/AllocationCounter`. Package access; allocates;
/// never on an audio thread itself.
package enum PushToSocketProbe {
    /// Per-thread counting: `start` begins on the calling thread, `stop` ends there and returns (allocations,
    /// lock calls) since `start`. Both must be real-time safe.
    package struct Counter: Sendable {
        package var start: @Sendable () -> Void
        package var stop: @Sendable () -> (allocations: Int64, locks: Int64)
        package init(start: @escaping @Sendable () -> Void, stop: @escaping @Sendable () -> (allocations: Int64, locks: Int64)) {
            self.start = start
            self.stop = stop
        }
    }

    package struct Figures: Sendable, CustomStringConvertible {
        package var pushes = 0
        package var pushAllocations: Int64 = 0
        package var pushLocks: Int64 = 0
        /// Audio frames the network thread wrote while counting, and what it did meanwhile; -1: not reached.
        package var networkFrames = 0
        package var networkAllocations: Int64 = -1
        package var networkLocks: Int64 = -1
        /// What the network thread did meanwhile outside the audio path: server messages turned into events
        /// (allocates per message, not per frame), lws's own loop.
        package var receiveAllocations: Int64 = -1
        package var receiveLocks: Int64 = -1
        package var sentences = 0
        package var ending = ""

        package var description: String {
            "push thread: \(pushAllocations) allocations, \(pushLocks) locks over \(pushes) pushes; network thread's "
                + "audio path: \(networkAllocations) allocations, \(networkLocks) locks over \(networkFrames) frames "
                + "(receive path meanwhile: \(receiveAllocations) allocations, \(receiveLocks) locks); "
                + "\(sentences) sentences, \(ending)"
        }

        /// Nothing allocated or locked on either thread, and the service heard the audio.
        package var isClean: Bool {
            pushes > 0 && pushAllocations == 0 && pushLocks == 0 && networkFrames > 0 && networkAllocations == 0
                && networkLocks == 0 && sentences > 0
        }
    }

    /// Counts on the network thread from audio write `from` to audio write `to`, apart: inside the audio path's
    /// callbacks (wake-up, write) and outside them (server messages, lws's loop). Network thread only.
    private final class NetworkWindow: @unchecked Sendable { // the network thread's until `done` signals
        let from: Int, to: Int, counter: Counter
        private var writes = 0
        private var active = false
        var audio: (allocations: Int64, locks: Int64) = (0, 0)
        var other: (allocations: Int64, locks: Int64) = (0, 0)
        let done = DispatchSemaphore(value: 0)

        init(from: Int, to: Int, counter: Counter) {
            self.from = from
            self.to = to
            self.counter = counter
        }

        func probe(_ point: AudioPathPoint) {
            switch point {
            case .enter:
                guard active else { return }
                add(to: &other)
                counter.start()
            case .leave:
                guard active else { return }
                add(to: &audio)
                counter.start()
            case .wrote:
                writes += 1
                if writes == from {
                    active = true
                    counter.start() // inside the write callback: counted as audio path at its leave
                } else if writes == to {
                    active = false
                    add(to: &audio)
                    done.signal()
                }
            }
        }

        private func add(to bucket: inout (allocations: Int64, locks: Int64)) {
            let counts = counter.stop()
            bucket.allocations += counts.allocations
            bucket.locks += counts.locks
        }
    }

    /// The chain the probe runs: speex MDF with its residual suppressor and the energy VAD (webrtc-audio-processing
    /// 0.3 locks its own mutex inside every call: see `FrontEndLockTests`).
    package static func frontEnd() -> FrontEndConfiguration {
        var frontEnd = FrontEndConfiguration()
        var speex = SpeexEchoCanceller.Configuration()
        speex.residualEchoSuppression = true
        frontEnd.echoCancellation = .speex(speex)
        frontEnd.voiceDetection?.detector = .energy(EnergyVoiceActivityDetector.Configuration())
        return frontEnd
    }

    /// One dialog (on a ``RecognitionEngine`` when `shared`, else a standalone core) over `mic` and `reference`
    /// (16 kHz) pushed in 10 ms pieces at about 5× real time; counts pushes after the first 2 s, and the network
    /// thread's audio frames 15 to 55 (100 ms frames).
    package static func run(_ configuration: RecognitionConfiguration, shared: Bool, mic: ArraySlice<Int16>,
                            reference: ArraySlice<Int16>, counter: Counter) throws -> Figures {
        let engine = shared ? try RecognitionEngine(configuration: configuration) : nil
        defer { engine?.close() }
        let core = try engine.map { try RecognitionCore(engine: $0) } ?? RecognitionCore(configuration: configuration)
        let window = NetworkWindow(from: 15, to: 55, counter: counter)
        core.streamingSession.audioPathProbe = { window.probe($0) }
        let ended = DispatchSemaphore(value: 0)
        let last = LastEvent()
        core.eventHandler = { event in
            guard event.isTerminal else { return }
            last.set(event)
            ended.signal()
        }
        try core.start()
        core.setPlaying(true)
        var figures = Figures()
        var offset = mic.startIndex
        while offset < mic.endIndex {
            let end = min(offset + 160, mic.endIndex)
            let counting = offset - mic.startIndex >= 32000
            if counting { counter.start() }
            _ = reference[offset..<min(end, reference.endIndex)].withUnsafeBufferPointer { core.pushReference(samples: $0) }
            let accepted = mic[offset..<end].withUnsafeBufferPointer { core.pushMic(samples: $0) }.accepted
            if counting {
                let counts = counter.stop()
                figures.pushAllocations += counts.allocations
                figures.pushLocks += counts.locks
                figures.pushes += 1
            }
            if accepted == end - offset { offset = end }
            usleep(2000) // about 5× real time: the network thread sends while the pushes go on
        }
        if window.done.wait(timeout: .now() + 20) == .success {
            figures.networkFrames = window.to - window.from
            (figures.networkAllocations, figures.networkLocks) = window.audio
            (figures.receiveAllocations, figures.receiveLocks) = window.other
        }
        try core.finish()
        _ = ended.wait(timeout: .now() + 30)
        switch last.get() {
        case .completed(let summary)?:
            figures.sentences = summary.sentences.count
            figures.ending = "completed"
        case let other:
            figures.ending = other.map { "\($0)" } ?? "no end within 30 s"
        }
        return figures
    }

    private final class LastEvent: @unchecked Sendable { // `event` behind `lock`
        private let lock = NSLock()
        private var event: RecognitionEvent?
        func set(_ value: RecognitionEvent) { lock.withLock { event = value } }
        func get() -> RecognitionEvent? { lock.withLock { event } }
    }
}
