import AudioFrontEnd
import Foundation
import SpeechStreaming

/// The part of a ``RecognitionEngine``'s output stream one dialog takes: from the output position of the mic
/// at its start to the one at its finish (PCM sample-exact; Opus by whole packets, in an Ogg stream of its
/// own), with the dialog's positions and milliseconds counted from its start. Guarded by the forwarder's mutex.
struct DialogWindow {
    /// First output sample of the dialog (output rate, from the engine's stream start).
    let start: Int
    let outputRate: Int
    /// The output position of the mic at finish, once finish was asked.
    var stop: Int?
    var stopAskedAt: ContinuousClock.Instant?
    /// The audio ended and the client was told to stop.
    var stopped = false
    var writer: OggOpusWriter?
    /// The Ogg header's pre-skip (the encoder's lookahead, 48 kHz).
    var preSkip = 0
    /// End of the last Opus packet written, 48 kHz.
    var packetEnd48k = 0
    /// Output samples the dialog took.
    var taken = 0
    /// Engine mic bytes at the start and at finish.
    var micBytesAtStart = 0
    var micBytesAtStop: Int?
    /// Engine mic pushes at finish (the mic stopped when they stay so).
    var micPushesAtStop = 0

    init(start: Int, outputRate: Int) {
        self.start = start
        self.outputRate = outputRate
    }

    var startMilliseconds: Int { start * 1000 / outputRate }
    func to48k(_ samples: Int) -> Int { samples * Opus.granuleRate / outputRate }

    /// The part of `chunk` inside the window, rebased to the dialog's start; nil when none.
    func clip(_ chunk: AudioChunk) -> AudioChunk? {
        let end = chunk.position + chunk.samples.count
        let from = max(chunk.position, start), to = min(end, stop ?? .max)
        guard from < to, !stopped else { return nil }
        var clipped = chunk
        if from != chunk.position || to != end {
            clipped.samples = Array(chunk.samples[(from - chunk.position)..<(to - chunk.position)])
        }
        clipped.position = from - start
        return clipped
    }

    /// `event` with its milliseconds counted from the dialog's start (never below zero).
    func rebased(_ event: FrontEndEvent) -> FrontEndEvent {
        let origin = startMilliseconds
        func ms(_ value: Int) -> Int { max(0, value - origin) }
        switch event {
        case .speechStarted(let value): return .speechStarted(milliseconds: ms(value))
        case .speechEnded(let value): return .speechEnded(milliseconds: ms(value))
        case .level(let value, let input, let output): return .level(milliseconds: ms(value), inputDecibels: input, outputDecibels: output)
        case .telemetry(var telemetry):
            telemetry.milliseconds = ms(telemetry.milliseconds)
            return .telemetry(telemetry)
        default: return event
        }
    }
}
