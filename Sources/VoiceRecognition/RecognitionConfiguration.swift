import AudioFrontEnd
import SpeechStreaming

/// Everything a recognition session needs before it starts: the on-device front end, the cloud service and
/// how the processed audio travels to it. A value type: build it on any thread.
///
/// The session overrides the service configuration's own `format` and `sampleRate` with ``audioFormat`` and
/// ``sampleRate``, and sets the front end's output rate (PCM) or Ogg Opus encoding (Opus) to match, so the
/// three can never disagree.
public struct RecognitionConfiguration: Sendable, Equatable {
    /// The cloud service and its protocol.
    public enum Service: Sendable, Equatable {
        /// DashScope real-time ASR over the task protocol (Paraformer, Fun-ASR, Qwen-Audio, Gummy).
        case dashScope(DashScopeConfiguration)
        /// NLS SpeechTranscriber (ISI real-time transcription, Tingwu MeetingJoinUrl).
        case nls(NLSConfiguration)
    }

    /// What to do when the streaming client's audio queue is full (the network falls behind).
    public enum QueueFullPolicy: Sendable, Equatable {
        /// Drop the chunk and count it in ``RecognitionDrops/audioBytesNotSent`` (live audio: never hold the
        /// front end back). Default.
        case drop
        /// Hold the processing thread (the mic push that completed the frame) until the queue has room: the
        /// push blocks, backpressure for files streamed as fast as the service accepts. Never for a live mic.
        case wait
    }

    /// The on-device front end (echo cancellation, noise suppression, VAD). Default: the library's defaults
    /// (16 kHz mic and reference, WebRTC AEC2, energy VAD).
    public var frontEnd: FrontEndConfiguration
    /// Where the audio goes.
    public var service: Service
    /// `pcm` (16-bit mono, at ``sampleRate``) or `opus` (Ogg Opus encoded by the front end). Default pcm.
    public var audioFormat: AudioFormat
    /// The rate of the audio the service receives, Hz. Default 16000. With Opus it must equal the front end's
    /// processing rate (the encoder runs at that rate).
    public var sampleRate: Int
    /// Opus bit rate and complexity when ``audioFormat`` is opus (its sample rate is set by the session).
    public var opus: Opus.Encoder.Configuration
    /// How long the mic may stay without pushes while the session runs before
    /// ``RecognitionEvent/micSilent(milliseconds:)`` (NUI's `EVENT_MIC_ERROR`). Default 2 s.
    public var micSilenceTimeout: Duration
    /// Default ``QueueFullPolicy/drop``.
    public var queueFullPolicy: QueueFullPolicy
    /// Whether the processed audio is reported as ``RecognitionEvent/audio(_:)`` (NUI's `EVENT_AEC_DATA`).
    /// Default true.
    public var reportsAudio: Bool

    public init(frontEnd: FrontEndConfiguration = FrontEndConfiguration(), service: Service,
                audioFormat: AudioFormat = .pcm, sampleRate: Int = 16000,
                opus: Opus.Encoder.Configuration = Opus.Encoder.Configuration(),
                micSilenceTimeout: Duration = .seconds(2), queueFullPolicy: QueueFullPolicy = .drop,
                reportsAudio: Bool = true) {
        self.frontEnd = frontEnd
        self.service = service
        self.audioFormat = audioFormat
        self.sampleRate = sampleRate
        self.opus = opus
        self.micSilenceTimeout = micSilenceTimeout
        self.queueFullPolicy = queueFullPolicy
        self.reportsAudio = reportsAudio
    }

    /// The front end configuration the session runs: output rate or Opus encoding set to match the service.
    func resolvedFrontEnd() throws(RecognitionError) -> FrontEndConfiguration {
        var resolved = frontEnd
        switch audioFormat {
        case .pcm:
            resolved.outputRate = sampleRate
            resolved.encoding = nil
        case .opus:
            guard sampleRate == frontEnd.processingRate else {
                throw .invalidConfiguration("Opus is encoded at the front end's processing rate (\(frontEnd.processingRate) Hz): set sampleRate to it, not \(sampleRate)")
            }
            var encoder = opus
            encoder.sampleRate = sampleRate
            resolved.outputRate = nil
            // Packets only: the streaming client muxes the Ogg stream (one muxer, OggMux) from the packets the
            // front end's audio sink hands it on the processing thread.
            resolved.encoding = FrontEndConfiguration.Encoding(opus: encoder, ogg: nil)
        }
        return resolved
    }

    /// The streaming client for the service, with format and rate set from this configuration.
    func makeStreamingSession() throws(RecognitionError) -> SpeechStreamingSession {
        guard micSilenceTimeout > .zero else { throw .invalidConfiguration("micSilenceTimeout must be positive") }
        do {
            switch service {
            case .dashScope(var configuration):
                configuration.parameters.format = audioFormat
                configuration.parameters.sampleRate = sampleRate
                configuration.connection.eventBufferLimit = 0 // the core takes events through the delegate only
                return try SpeechStreamingSession(configuration: configuration)
            case .nls(var configuration):
                configuration.format = audioFormat
                configuration.sampleRate = sampleRate
                configuration.connection.eventBufferLimit = 0
                return try SpeechStreamingSession(configuration: configuration)
            }
        } catch let error as SpeechStreamingError {
            throw .service(error)
        } catch {
            throw .invalidConfiguration("\(error)")
        }
    }
}
