import AudioFrontEnd
import Foundation
import SpeechStreaming

/// The bridge between the two halves: on the front end's drain thread it sends each processed chunk (PCM) or
/// Ogg page (Opus) to the streaming client and, after the front end's last event, ends the client's audio; it
/// hands every event of both halves to the session's event thread. Never runs on an audio thread.
final class AudioForwarder: FrontEndDelegate, SpeechStreamingDelegate, @unchecked Sendable { // immutable
    private let session: SpeechStreamingSession
    private let pump: EventPump
    private let shared: SharedState
    private let format: AudioFormat
    private let policy: RecognitionConfiguration.QueueFullPolicy
    private let reportsAudio: Bool

    init(session: SpeechStreamingSession, pump: EventPump, shared: SharedState, configuration: RecognitionConfiguration) {
        self.session = session
        self.pump = pump
        self.shared = shared
        format = configuration.audioFormat
        policy = configuration.queueFullPolicy
        reportsAudio = configuration.reportsAudio
    }

    /// The front end's drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        switch event {
        case .audio(let chunk):
            if format == .pcm { chunk.samples.withUnsafeBytes { send($0) } }
            if !reportsAudio { return }
        case .oggPage(let page):
            if format == .opus { page.withUnsafeBytes { send($0) } }
            return
        case .opusPacket:
            return
        case .finished:
            pump.post(.frontEnd(event)) // before the stop, so the summary has it before completion can arrive
            session.stop() // every chunk was sent above: the client sends the rest, then finish-task
            return
        default:
            break
        }
        pump.post(.frontEnd(event))
    }

    /// Most messages waiting for the event thread before a service event is dropped (and counted in
    /// ``RecognitionDrops/eventsDropped``): a handler slower than the server cannot grow memory without limit.
    /// A task's start and end are never dropped.
    static let backlogLimit = 16_384

    /// The streaming client's delivery queue.
    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent) {
        if !event.isTaskBoundary, pump.backlog >= Self.backlogLimit {
            shared.eventsDropped.add(1, ordering: .relaxed)
            return
        }
        pump.post(.speech(event))
    }

    private func send(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        var result = session.send(audio: bytes)
        while result == .queueFull && policy == .wait && shared.state != .ended {
            usleep(2000)
            result = session.send(audio: bytes)
        }
        if result != .accepted { shared.audioBytesNotSent.add(bytes.count, ordering: .relaxed) }
    }
}
