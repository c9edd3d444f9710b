import AudioFrontEnd

/// Takes a dialog's front-end output (on an engine, or on the core's own front end) straight from the front
/// end's drain thread, instead of the core's event thread: the NUI facade's way to make `EVENT_AEC_DATA`,
/// `onNuiRmsChanged` and the VAD events cross one thread fewer, with no `[Int16]` per 10 ms chunk, and
/// ``RecognitionSession``'s way to fill its sequences (``SessionTap``) (``RecognitionCore/setOutputTap(_:)``).
///
/// What the tap gets is what the core's handler would have got, in the same order among themselves (stream
/// order), clipped and rebased to the dialog: the ``RecognitionEvent/audio(_:)``, ``RecognitionEvent/level(milliseconds:inputDecibels:outputDecibels:)``,
/// ``RecognitionEvent/speechStarted(milliseconds:)`` and ``RecognitionEvent/speechEnded(milliseconds:)`` of
/// the dialog; the handler no longer gets those (the summary still counts the speech segments).
///
/// Threads: every call runs on the front end's drain thread while the dialog's window lock is held, so a call
/// must not block for long nor call into the core or the engine; it may post to another thread (that is what it
/// is for). The audio's completion waits for what the tap took: ``RecognitionEvent/completed(_:)`` reaches the
/// handler only after every chunk the tap took, and the tap is called no more once
/// ``RecognitionCore/closeOutputTap()`` returned or the dialog ended (before its last event reaches the handler).
package protocol DialogOutputTap: AnyObject, Sendable {
    /// Processed samples of the dialog at the output rate; `position`: the first one's index from the dialog's
    /// start. Valid during the call only. Drain thread; real-time path after the event ring: no allocation here.
    func dialogAudio(_ samples: UnsafeBufferPointer<Int16>, position: Int)
    /// The level of one frame (``RecognitionEvent/level(milliseconds:inputDecibels:outputDecibels:)``). Drain thread.
    func dialogLevel(milliseconds: Int, inputDecibels: Float, outputDecibels: Float)
    /// ``RecognitionEvent/speechStarted(milliseconds:)`` or ``RecognitionEvent/speechEnded(milliseconds:)``,
    /// milliseconds from the dialog's start. Drain thread.
    func dialogSpeech(_ event: RecognitionEvent)
    /// `samples` of the dialog's processed audio (and their frames' levels) the front end dropped instead of
    /// reporting (``AudioFrontEnd/FrontEndConfiguration/EventsBehind/dropAppEvents``: its consumer was behind),
    /// at their place in the stream; the samples went to the service. Drain thread.
    func dialogAudioDropped(samples: Int)
}

extension DialogOutputTap {
    package func dialogAudioDropped(samples: Int) {}
}
