/// Server messages through the client's parsing and session state as the session engine handles them, without a
/// socket: for the fuzz targets (Fuzz/) and their regression tests. Package access only; apps use
/// ``SpeechStreamingSession``.
///
/// A probe holds one task of a DashScope or NLS session, connected and started: each ``receive(_:)`` parses the
/// text with the protocol's parser and applies what it says to the ``SessionMachine``, the ``SentenceTracker`` and
/// the ``ReplayBuffer`` the way `SessionEngine.handleServerMessage` does; when the task ends a new one starts.
/// ``reconnect()`` is a dropped connection and a new server task (sentence ids and times shift). Any thread, one at
/// a time; not real-time safe.
package struct ServerMessageProbe {
    package enum Service: CaseIterable, Sendable { case dashScope, nls }

    private let wire: any WireProtocol
    private var machine: SessionMachine
    private var sentences = SentenceTracker()
    private var replay: ReplayBuffer
    private var clock = Duration.zero
    /// The task id of every task the probe runs (DashScope messages with another `task_id` are stale).
    package static let taskId = "2bf83b9abaeb4fda8d9a000000000001"
    private let taskId = ServerMessageProbe.taskId
    /// Events a session would have delivered (results, sentence starts, translations, reports).
    package private(set) var events = 0

    package init(service: Service, format: AudioFormat) throws {
        var connection = ConnectionOptions()
        connection.reconnection = ReconnectionPolicy(isEnabled: true)
        switch service {
        case .dashScope:
            var parameters = DashScopeParameters()
            parameters.format = format
            wire = try DashScopeProtocol(DashScopeConfiguration(url: "ws://127.0.0.1:9/api-ws/v1/inference",
                                                                apiKey: "probe-key", parameters: parameters,
                                                                connection: connection))
        case .nls:
            wire = try NLSProtocol(NLSConfiguration(url: "ws://127.0.0.1:9/ws/v1", token: "probe-token",
                                                    format: format, connection: connection))
        }
        machine = SessionMachine(timing: SessionMachine.Timing(connection), reconnection: connection.reconnection,
                                 reusesConnection: wire.reusesConnection)
        replay = ReplayBuffer(format: format, sampleRate: wire.sampleRate,
                              capacityBytes: connection.reconnection.replayCapacityBytes)
        startTask()
    }

    /// A fuzz input (Fuzz/corpus/FuzzServerMessages): the first byte picks the protocol (bit 0: DashScope, NLS) and
    /// the format (bit 1: PCM, Opus); the rest is one server message per line; a line `!finish` is the client's
    /// finish (a completion after it is normal, before it an error), `!reconnect` a dropped connection. Returns the
    /// events the messages caused.
    @discardableResult
    package static func run(fuzzInput bytes: UnsafeRawBufferPointer) -> Int {
        guard let first = bytes.first else { return 0 }
        // swiftlint:disable:next force_try
        var probe = try! ServerMessageProbe(service: first & 1 == 0 ? .dashScope : .nls,
                                            format: first & 2 == 0 ? .pcm : .opus)
        for line in bytes.dropFirst().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let text = String(decoding: line, as: UTF8.self)
            switch text {
            case "!reconnect": probe.reconnect()
            case "!finish": probe.finish()
            default: probe.receive(text)
            }
        }
        return probe.events
    }

    /// Handles one text message from the server.
    package mutating func receive(_ text: String) {
        clock += .milliseconds(10)
        apply(machine.handle(.received, at: clock))
        let parsed: ParsedMessage
        do {
            parsed = try wire.parse(text)
        } catch {
            apply(machine.handle(.failure(error), at: clock))
            return startTaskIfIdle()
        }
        if wire is DashScopeProtocol, let id = parsed.taskId, id != taskId { return }
        for item in parsed.items {
            switch item {
            case .started:
                apply(machine.handle(.taskStarted, at: clock))
            case .sentenceBegin(let serverId, let begin):
                announce(sentences.sentenceId(serverId), begin: sentences.time(begin))
            case .result(let result):
                deliver(result)
            case .translation(let translation):
                _ = translation.sentenceId.map { sentences.sentenceId($0) }
                events += 1
            case .completed:
                if case .finishing = machine.phase {
                    apply(machine.handle(.taskCompleted, at: clock))
                } else { // before the client's finish: the server dropped audio (SessionEngine.earlyCompletion)
                    apply(machine.handle(.failure(SpeechStreamingError(.protocolViolation, "early finish")), at: clock))
                }
            case .failed(let code, let message):
                apply(machine.handle(.failure(SpeechStreamingError(.taskFailed, message, serverCode: code,
                                                                   rawJSON: text).redacting(wire.secrets)), at: clock))
            }
            if machine.phase == .idle { break }
        }
        startTaskIfIdle()
    }

    /// The client stops the task and its audio has gone out: finish-task / StopTranscription is on the wire.
    package mutating func finish() {
        apply(machine.handle(.stop, at: clock))
        apply(machine.handle(.audioDrained, at: clock))
    }

    /// The connection drops and the session reconnects: a new server task resumes after the kept audio.
    package mutating func reconnect() {
        apply(machine.handle(.connectionLost(SpeechStreamingError(.connectionClosed, "probe")), at: clock))
        clock += .seconds(10)
        apply(machine.handle(.tick, at: clock))
        apply(machine.handle(.connected, at: clock))
        startTaskIfIdle()
    }

    private mutating func startTask() {
        sentences.reset()
        replay.reset()
        apply(machine.handle(.start, at: clock))
        apply(machine.handle(.connected, at: clock))
    }

    private mutating func startTaskIfIdle() {
        if machine.phase == .idle { startTask() }
    }

    private mutating func apply(_ actions: [SessionMachine.Action]) {
        for action in actions {
            switch action {
            case .beginAudio(replay: true):
                _ = replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100, packer: nil)
                sentences.resume(atMilliseconds: replay.startMilliseconds)
            case .report:
                events += 1
            default:
                break
            }
        }
    }

    private mutating func announce(_ id: Int, begin: Int) {
        guard sentences.isNew(id) else { return }
        sentences.started(id, beginMilliseconds: begin)
        events += 1
    }

    private mutating func deliver(_ parsed: ParsedResult) {
        let id = sentences.sentenceId(parsed.sentenceId)
        let begin = parsed.beginMilliseconds.map { sentences.time($0) } ?? sentences.begin(of: id)
            ?? sentences.timeOffsetMilliseconds
        announce(id, begin: begin)
        let end = parsed.endMilliseconds.map { sentences.time($0) }
        if parsed.isFinal {
            sentences.ended(id)
            if let end { replay.trim(throughMilliseconds: end) }
            apply(machine.handle(.sentenceEnded, at: clock))
        }
        events += 1
    }
}
