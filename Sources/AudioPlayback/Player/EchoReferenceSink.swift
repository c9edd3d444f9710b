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
}

extension FrontEnd: EchoReferenceSink {}
