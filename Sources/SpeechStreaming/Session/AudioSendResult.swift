/// What became of audio passed to ``SpeechStreamingSession/send(audio:)``.
public enum AudioSendResult: Sendable, Equatable {
    /// Queued; it goes out once the task has started.
    case accepted
    /// The audio queue is full (the connection is slow or down); the audio was dropped and counted in
    /// ``SessionStatistics/overruns``.
    case queueFull
    /// No task takes audio: not started, stopped, failed or closed. The audio was dropped.
    case inactive
    /// Not audio this session can send: an Opus packet to a PCM session (or samples to an Opus one), an empty,
    /// oversized or malformed packet. Dropped.
    case invalidAudio
}
