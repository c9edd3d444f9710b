extension FrontEndConfiguration {
    /// What the processing thread does when the event rings are full because the event consumer (the
    /// ``FrontEndDelegate`` on the drain thread, or the ``FrontEnd/events`` sequence's feeding) is behind
    /// (``FrontEndConfiguration/whenEventsBehind``).
    public enum EventsBehind: Sendable, Equatable {
        /// Lossless backpressure (the default): a frame is processed only when all its events fit, so frames
        /// wait in the mic ring (up to ``FrontEndConfiguration/micBufferMilliseconds``, then pushes return
        /// ``PushStatus/bufferFull``) until the consumer catches up. Every event arrives: for `afe process`, files
        /// and any consumer that needs every sample.
        case waitForConsumer
        /// The service never waits for the app: every frame is processed when it is pushed, its output goes to the
        /// ``FrontEnd/audioSink`` as always, and when the event rings are full only the frame's app-only events
        /// are dropped and counted (``FrontEndEvent/audio(_:)``, ``FrontEndEvent/level(milliseconds:inputDecibels:outputDecibels:)``,
        /// ``FrontEndEvent/telemetry(_:)``, ``FrontEndEvent/opusPacket(_:)``, ``FrontEndEvent/oggPage(_:)``:
        /// ``FrontEnd/appEventsDropped``, ``DropCounts/eventOverruns``). A frame's events are all kept or all
        /// dropped. Speech starts and ends, barge-in decisions, drop reports and the finished event are never
        /// dropped: ``EventChannel/keptReserve`` records stay free for them, and only when that many wait unread
        /// (minutes of speech with no consumer) do frames wait as with ``waitForConsumer``. A drop report whose
        /// only change is ``DropCounts/eventOverruns`` is held back while frames are being dropped and goes out
        /// with the next report (counts are cumulative: nothing is lost), so a stalled consumer does not fill the
        /// reserve with reports. For consumers that stream to a service and show the app what they can
        /// (VoiceRecognition's engine under NeoNui).
        case dropAppEvents
    }
}
