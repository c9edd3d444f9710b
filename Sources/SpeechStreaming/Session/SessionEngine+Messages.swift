/// Server messages → typed events (network thread).
extension SessionEngine {
    func handleServerMessage(_ text: String) {
        let parsed: ParsedMessage
        do {
            parsed = try wire.parse(text)
        } catch {
            feed(.failure(error))
            return
        }
        // DashScope tags every event with the task id; a message of an earlier task is stale.
        if wire is DashScopeProtocol, let id = parsed.taskId, !taskId.isEmpty, id != taskId { return }
        guard machine.phase != .idle else { return }
        currentRaw = text
        defer { currentRaw = nil }
        for item in parsed.items {
            switch item {
            case .started(let sessionId):
                startedSessionId = sessionId
                feed(.taskStarted)
            case .sentenceBegin(let serverId, let begin):
                announce(sentences.sentenceId(serverId), begin: sentences.time(begin), raw: text)
            case .result(let result):
                deliver(result, raw: text)
            case .translation(let t):
                delivery.deliver(.translation(Translation(taskId: taskId, sentenceId: t.sentenceId.map { sentences.sentenceId($0) },
                                                          text: t.text, language: t.language, isFinal: t.isFinal,
                                                          rawJSON: text)))
            case .completed:
                if case .finishing = machine.phase { feed(.taskCompleted) } else { feed(.failure(earlyCompletion())) }
            case .failed(let code, let message):
                feed(.failure(SpeechStreamingError(.taskFailed, message.isEmpty ? "the server failed the task" : message,
                                                   serverCode: code, rawJSON: text)))
            }
            if machine.phase == .idle { break }
        }
    }

    /// task-finished / TranscriptionCompleted before the client's finish-task: the server dropped the rest of
    /// the audio, so the task failed. The message counts what went out and what was queued (dropped with it).
    private func earlyCompletion() -> SpeechStreamingError {
        let sent = counters.audioBytesSent.load(ordering: .relaxed)
        let queued = ring.queuedBytes + pendingAudioBytes
        return SpeechStreamingError(.protocolViolation, "the server finished the task before the client finished "
                                    + "sending audio: \(sent) bytes of audio sent, \(queued) queued bytes not sent "
                                    + "(audio sent after this is refused)", rawJSON: currentRaw)
    }

    private func announce(_ id: Int, begin: Int, raw: String) {
        guard sentences.isNew(id) else { return }
        sentences.started(id, beginMilliseconds: begin)
        delivery.deliver(.sentenceStart(SentenceStart(taskId: taskId, sentenceId: id, beginMilliseconds: begin,
                                                      rawJSON: raw)))
    }

    private func deliver(_ parsed: ParsedResult, raw: String) {
        let id = sentences.sentenceId(parsed.sentenceId)
        let begin = parsed.beginMilliseconds.map { sentences.time($0) } ?? sentences.begin(of: id)
            ?? sentences.timeOffsetMilliseconds
        announce(id, begin: begin, raw: raw)
        let end = parsed.endMilliseconds.map { sentences.time($0) }
        let result = RecognitionResult(taskId: taskId, sentenceId: id, text: parsed.text, beginMilliseconds: begin,
                                       endMilliseconds: end, isFinal: parsed.isFinal, rawJSON: raw)
        if parsed.isFinal {
            sentences.ended(id)
            if let end { replay.trim(throughMilliseconds: end) }
            delivery.deliver(.sentenceEnd(result))
            feed(.sentenceEnded)
        } else {
            delivery.deliver(.partialResult(result))
        }
    }
}
