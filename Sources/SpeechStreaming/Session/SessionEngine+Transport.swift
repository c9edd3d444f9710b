/// The transport's reports, on its service thread, fed to the session machine.
extension SessionEngine: WebSocketTransportDelegate {
    func transportWoke() {
        wakePending.store(false, ordering: .sequentiallyConsistent)
        runCommands()
        if machine.audioMayFlow { transport.requestWrite() } else { dropStaleAudio() }
    }

    func transportTimerFired() { feed(.tick) }

    func transportPacingTimerFired() { transport.requestWrite() }

    func transportDidOpen() { feed(.connected) }

    func transportDidFail(reason: String, httpStatus: Int) {
        feed(.connectFailed(ConnectionFailure.error(reason: reason, httpStatus: httpStatus, endpoint: wire.endpoint)))
    }

    func transportDidReceiveFrame() { feed(.received) }

    func transportDidReceiveOversizedMessage(bytes: Int) {
        feed(.failure(SpeechStreamingError(.oversizedMessage, "the server sent (or its frame header claimed) a message "
                                           + "of \(bytes) bytes, more than the limit of \(options.maxMessageBytes)")))
    }

    func transportDidReceiveBinary(bytes: Int) {
        feed(.failure(SpeechStreamingError(.protocolViolation, "the server sent a binary frame of \(bytes) bytes; "
                                           + "the ASR protocols send only JSON text")))
    }

    func transportDidSendClose() { closeWritten() }

    func transportDidClose(code: Int?, reason: String) {
        let detail = code.map { " (close code \($0)\(reason.isEmpty ? "" : ": \(reason)"))" } ?? ""
        feed(.connectionLost(SpeechStreamingError(.connectionClosed, "the connection closed\(detail)")))
    }

    func transportDidReceiveText(_ text: String) { handleServerMessage(text) }

    func transportNextOutgoing() -> OutgoingFrame? { nextOutgoing() }
}
