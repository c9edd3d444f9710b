import AudioFrontEnd

/// Where a ``SynthesisPlayer`` pushes what it hands to the device: the front end's echo reference.
/// ``FrontEnd`` is one; anything else that wants the played samples at the moment they are played (a recorder,
/// a second front end) can be.
///
/// Both calls are made on the render thread and must be real-time safe.
public protocol EchoReferenceSink: AnyObject, Sendable {
    /// Takes the samples handed to the device (interleaved like the device buffer). See ``FrontEnd/pushReference(samples:)``.
    func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult
    /// Playback started (`true`) or ended (`false`). See ``FrontEnd/setPlaying(_:)``.
    func setPlaying(_ isPlaying: Bool)
    /// A player with this sink as its reference was made (`sampleRate`, `channelCount`: its device format).
    /// Returns the ``ReferenceMix`` into which the sink routes the app's own reference pushes while the player is
    /// attached, or nil (the default: the player then makes its own, fed by
    /// ``SynthesisPlayer/pushAppReference(samples:)``). Control thread (the player's `init`); may lock.
    func attachPlayback(sampleRate: Int, channelCount: Int) -> ReferenceMix?
    /// The player is closed: the app's pushes go to the sink directly again. `mix` is what ``attachPlayback(sampleRate:channelCount:)``
    /// returned. Control thread; may lock.
    func detachPlayback(_ mix: ReferenceMix?)
}

extension EchoReferenceSink {
    public func attachPlayback(sampleRate: Int, channelCount: Int) -> ReferenceMix? { nil }
    public func detachPlayback(_ mix: ReferenceMix?) {}
}

extension FrontEnd: EchoReferenceSink {}
