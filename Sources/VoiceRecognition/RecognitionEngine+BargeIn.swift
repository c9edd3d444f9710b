import AudioFrontEnd

extension RecognitionEngine: BargeInSource {
    /// Calls `handler` with each barge-in decision of the engine's front end (``AudioFrontEnd/FrontEnd/setBargeInHandler(_:)``),
    /// between dialogs too. On the front end's drain thread; any thread may set it.
    public func setBargeInHandler(_ handler: (@Sendable (BargeInDecision) -> Void)?) {
        frontEnd.setBargeInHandler(handler)
    }
}
