import AudioFrontEnd
import SpeechStreaming
import Synchronization

/// A ``RecognitionEngine``'s delegate for its front end and its streaming clients: hands each event to the
/// running dialog's ``AudioForwarder``, or discards and counts it when no dialog runs. Keeps the stream's
/// clocks a dialog needs (where the output and the Opus packets are). Front-end drain thread and the streaming
/// client's delivery queue; never an audio thread.
final class DialogRouter: FrontEndDelegate, SpeechStreamingDelegate, @unchecked Sendable { // state under mutexes/atomics
    private let current = Mutex<AudioForwarder?>(nil)
    private let counts = Mutex(BetweenDialogCounts())
    /// The front end's latest drop counts (cumulative over the engine's life).
    let lastDrops = Mutex(DropCounts())
    let outputRate: Int
    /// End of the last processed chunk, samples at the output rate. Drain thread writes.
    let outputEnd = Atomic<Int>(0)
    /// Start of the next Opus packet, 48 kHz samples (drain thread only).
    private var opusPosition = 0

    init(outputRate: Int) {
        self.outputRate = outputRate
    }

    /// Makes `forwarder` the dialog that takes the output. Control thread.
    func attach(_ forwarder: AudioForwarder) { current.withLock { $0 = forwarder } }

    /// Stops routing to `forwarder` if it is the current dialog. Any thread.
    func detach(_ forwarder: AudioForwarder) {
        current.withLock { if $0 === forwarder { $0 = nil } }
    }

    var betweenDialogs: BetweenDialogCounts { counts.withLock { $0 } }

    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        var packetStart = 0
        switch event {
        case .audio(let chunk):
            outputEnd.store(chunk.position + chunk.samples.count, ordering: .releasing)
        case .opusPacket(let packet):
            packetStart = opusPosition
            opusPosition += packet.durationSamples48k
        case .drops(let drops):
            lastDrops.withLock { $0 = drops }
        default:
            break
        }
        let target = current.withLock { $0 }
        guard let target, target.take(event, opusStart: packetStart, outputEnd: outputEnd.load(ordering: .acquiring))
        else { return discard(event) }
    }

    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent) {
        guard let target = current.withLock({ $0 }), target.isSession(session) else {
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
