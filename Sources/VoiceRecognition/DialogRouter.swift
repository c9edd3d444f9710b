import AudioFrontEnd
import SpeechStreaming
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``RecognitionEngine``'s delegate for its front end and its streaming clients: hands each event to the
/// running dialog's ``AudioForwarder``, or discards and counts it when no dialog runs. Keeps the stream's
/// clocks a dialog needs (where the output and the Opus packets are). Front-end drain thread and the streaming
/// client's delivery queue for events. As the front end's ``AudioFrontEnd/FrontEndAudioSink`` it also hands the
/// running dialog its audio on the processing thread, lock-free: the dialog is published in an atomic, and
/// ``detach(_:)`` waits until the processing thread is no longer inside it before the dialog may be released.
final class DialogRouter: FrontEndRawAudioDelegate, FrontEndAudioSink, SpeechStreamingDelegate, @unchecked Sendable { // state under mutexes/atomics; rtOpusPosition processing thread only
    private let current = Mutex<AudioForwarder?>(nil)
    private let counts = Mutex(BetweenDialogCounts())
    /// The front end's latest drop counts (cumulative over the engine's life).
    let lastDrops = Mutex(DropCounts())
    let outputRate: Int
    /// End of the last processed chunk, samples at the output rate. Drain thread writes.
    let outputEnd = Atomic<Int>(0)
    /// Start of the next Opus packet, 48 kHz samples (drain thread only).
    private var opusPosition = 0
    /// The attached forwarder for the processing thread (`Unmanaged` bits, 0: none); `current` keeps it alive.
    private let rtTarget = Atomic<UInt>(0)
    /// Odd while the processing thread uses `rtTarget`'s forwarder.
    private let rtInside = Atomic<Int>(0)
    /// Start of the next Opus packet, 48 kHz samples (processing thread only).
    private var rtOpusPosition = 0

    init(outputRate: Int) {
        self.outputRate = outputRate
    }

    /// Makes `forwarder` the dialog that takes the output. Control thread.
    func attach(_ forwarder: AudioForwarder) {
        current.withLock { value in SanitizerSync.held(by: self) { value = forwarder } }
        rtTarget.store(UInt(bitPattern: Unmanaged.passUnretained(forwarder).toOpaque()), ordering: .sequentiallyConsistent)
    }

    /// Stops routing to `forwarder` if it is the current dialog; returns once the processing thread no longer
    /// uses it. Any thread but the processing thread.
    func detach(_ forwarder: AudioForwarder) {
        let bits = UInt(bitPattern: Unmanaged.passUnretained(forwarder).toOpaque())
        _ = rtTarget.compareExchange(expected: bits, desired: 0, ordering: .sequentiallyConsistent)
        let inside = rtInside.load(ordering: .sequentiallyConsistent)
        if inside & 1 == 1 { while rtInside.load(ordering: .sequentiallyConsistent) == inside { sched_yield() } }
        current.withLock { value in SanitizerSync.held(by: self) { if value === forwarder { value = nil } } }
    }

    // MARK: Audio (processing thread)

    func frontEnd(processed samples: UnsafeBufferPointer<Int16>, position: Int) {
        withTarget { _ = $0.takeProcessed(samples, position: position) }
    }

    func frontEnd(encoded packet: UnsafeRawBufferPointer, granuleAdvance48k: Int, isLast: Bool) {
        let start = rtOpusPosition
        rtOpusPosition += granuleAdvance48k
        withTarget { _ = $0.takePacket(packet, start48k: start, advance48k: granuleAdvance48k) }
    }

    /// Runs `body` on the attached forwarder, if any, marked as inside for ``detach(_:)``. Real-time safe.
    private func withTarget(_ body: (AudioForwarder) -> Void) {
        rtInside.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { rtInside.wrappingAdd(1, ordering: .sequentiallyConsistent) }
        let bits = rtTarget.load(ordering: .sequentiallyConsistent)
        guard bits != 0, let pointer = UnsafeRawPointer(bitPattern: bits) else { return }
        Unmanaged<AudioForwarder>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    var betweenDialogs: BetweenDialogCounts { counts.withLock { $0 } }

    /// The running dialog's forwarder, read under `current`'s lock (told to ThreadSanitizer: the drain and the
    /// streaming client's queue meet ``attach(_:)`` / ``detach(_:)`` of a control thread there). Any thread.
    private var running: AudioForwarder? { current.withLock { value in SanitizerSync.held(by: self) { value } } }

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        var packetStart = 0
        switch event {
        case .audio(let chunk):
            advanceOutput(start: chunk.position, end: chunk.position + chunk.samples.count)
        case .opusPacket(let packet):
            packetStart = opusPosition
            opusPosition += packet.durationSamples48k
        case .drops(let drops):
            lastDrops.withLock { $0 = drops }
        default:
            break
        }
        let target = running
        guard let target, target.take(event, opusStart: packetStart, outputEnd: outputEnd.load(ordering: .acquiring))
        else { return discard(event) }
    }

    /// The processed audio as the drain read it (no ``AudioChunk``): the running dialog's forwarder clips it and
    /// hands it to its ``DialogOutputTap`` without an allocation. Drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didProduceAudio samples: UnsafeBufferPointer<Int16>, position: Int) {
        let end = position + samples.count
        advanceOutput(start: position, end: end)
        guard let target = running,
              target.takeAudio(samples, position: position, sampleRate: outputRate, outputEnd: end)
        else { return counts.withLock { $0.audioSamplesDiscarded += samples.count } }
    }

    /// The front end's latest audio was dropped up to `end` (no later chunk shows the gap yet). Drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didDropAudioUpTo end: Int) {
        advanceOutput(start: end, end: end)
    }

    /// Moves the output's end to `end` for audio starting at `start`. Output samples between the previous end
    /// and `start` are audio whose events the front end dropped (its event rings were full:
    /// ``AudioFrontEnd/FrontEndConfiguration/EventsBehind/dropAppEvents``): the running dialog counts its part
    /// as taken (outside a dialog they count only in the front end's ``AudioFrontEnd/FrontEnd/appEventsDropped``). Drain thread.
    private func advanceOutput(start: Int, end: Int) {
        let previousEnd = outputEnd.exchange(end, ordering: .acquiringAndReleasing)
        guard start > previousEnd, let target = running else { return }
        target.takeGap(from: previousEnd, to: start, outputEnd: start)
    }

    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent) {
        guard let target = running, target.isSession(session) else {
            counts.withLock { $0.serviceEventsDiscarded += 1 }
            return
        }
        target.speechSession(session, didReceive: event)
    }

    private func discard(_ event: FrontEndEvent) {
        counts.withLock { counts in
            switch event {
            case .audio(let chunk): counts.audioSamplesDiscarded += chunk.samples.count
            case .opusPacket: counts.opusPacketsDiscarded += 1
            case .oggPage, .finished: break
            default: counts.eventsDiscarded += 1
            }
        }
    }
}
