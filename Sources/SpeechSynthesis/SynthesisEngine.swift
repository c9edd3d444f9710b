import Dispatch
import SpeechStreaming
import Threads

/// The network-thread half of a synthesis session: one task at a time over a ``WebSocketTransport`` (kept open
/// between tasks, as the service allows), its timeouts, and the server's messages turned into events.
///
/// Threads: ``post(_:)`` from any thread; everything else on the transport's service thread. Invariant behind
/// `@unchecked Sendable`: the state below is touched only on the service thread (commands pass a lock).
final class SynthesisEngine: @unchecked Sendable {
    enum Command {
        case start(generation: UInt64)
        /// Text and finish name their task: one that ended meanwhile leaves them unsent.
        case text(String, generation: UInt64)
        case finish(generation: UInt64)
        case cancel
        /// Cancel, then signal once the close frame is out.
        case close
    }

    enum Phase: Equatable { case idle, connecting, starting, running, finishing }

    let wire: SynthesisProtocol
    let options: ConnectionOptions
    let transport: WebSocketTransport
    let delivery: SynthesisDelivery
    /// The generation of the task the session runs, nil when none: cleared (when still this task's) just before a
    /// task's last event is delivered, so the delegate may start the next.
    let active: Locked<UInt64?>
    private let commands = Locked<[Command]>([])
    private let closeFrameSent = DispatchSemaphore(value: 0)
    private let isShutDown = Locked(false)

    // Service thread only.
    private let clock = ContinuousClock()
    private var phase = Phase.idle
    private var connectionOpen = false
    private var taskId = ""
    private var pendingTexts: [String] = []
    private var finishRequested = false
    private var outgoing: [OutgoingFrame] = []
    private var phaseDeadline: ContinuousClock.Instant?
    private var lastReceived = ContinuousClock.now
    private var pingSent = false
    private var closeRequested = false
    private var synthesisIndex: Int?
    private var startedAt = ContinuousClock.now
    private var firstTextAt: ContinuousClock.Instant?
    private var firstAudioSeen = false
    /// The running task's generation (``SynthesisDelivery/nextGeneration()``).
    private var generation: UInt64 = 0
    /// When the open connection last finished a task (it is kept for the next).
    private var idleSince = ContinuousClock.now
    /// The task's run-task went out on a kept connection and task-started has not come: if that connection turns
    /// out closed (the server's idle close crossing the run-task), the task connects again, once, without an error.
    private var startedOnKeptLink = false

    init(wire: SynthesisProtocol, delivery: SynthesisDelivery, active: Locked<UInt64?>) throws {
        self.wire = wire
        options = wire.configuration.connection
        self.delivery = delivery
        self.active = active
        transport = try WebSocketTransport(usesTLS: wire.endpoint.usesTLS, caFilePath: options.caFilePath,
                                           connectTimeout: options.connectTimeout,
                                           maxMessageBytes: options.maxMessageBytes)
        transport.deliversBinary = true
        transport.delegate = self
        try transport.startServiceThread()
    }

    deinit { transport.shutdown() }

    /// Hands a command to the network thread. Any thread; not real-time safe (a lock, an allocation).
    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        transport.wake()
    }

    /// Cancels any task, waits until the close frame is written (at most 2 s), stops the network thread.
    /// Any thread but the network thread; idempotent.
    func shutdown() {
        guard !isShutDown.withLock({ value in defer { value = true }; return value }) else { return }
        post(.close)
        _ = closeFrameSent.wait(timeout: .now() + .seconds(2))
        transport.shutdown()
    }

    // MARK: Commands

    func runCommands() {
        let pending = commands.takeAll()
        for command in pending {
            switch command {
            case .start(let generation): begin(generation)
            case .text(let text, let task):
                guard task == generation else { continue } // for a task that already ended
                if phase == .running { sendText(text) } else if phase != .idle { pendingTexts.append(text) }
            case .finish(let task):
                guard task == generation else { continue }
                if phase == .running { sendFinish() } else if phase == .connecting || phase == .starting {
                    finishRequested = true
                }
            case .cancel: cancel()
            case .close:
                closeRequested = true
                cancel()
                if connectionOpen {
                    connectionOpen = false
                    transport.close()
                } else if transport.closing.isEmpty {
                    closeFrameSent.signal()
                }
            }
        }
        schedule()
    }

    private func begin(_ generation: UInt64) {
        guard phase == .idle else { return }
        self.generation = generation
        taskId = TaskIdentifier.make()
        pendingTexts = []
        finishRequested = false
        synthesisIndex = nil
        firstTextAt = nil
        firstAudioSeen = false
        startedAt = clock.now
        delivery.statistics.withLock {
            $0.connectMilliseconds = nil
            $0.startMilliseconds = nil
            $0.firstAudioMilliseconds = nil
        }
        lastReceived = clock.now
        pingSent = false
        if connectionOpen && clock.now - idleSince >= options.keptConnectionIdleLimit {
            connectionOpen = false // idle for long: the server is about to close it (DashScope: 60 s)
            transport.close()
        }
        startedOnKeptLink = connectionOpen
        if connectionOpen { sendRunTask() } else { connect() }
    }

    private func connect() {
        phase = .connecting
        phaseDeadline = clock.now + options.connectTimeout
        transport.connect(to: wire.endpoint, headers: wire.handshakeHeaders)
    }

    private func sendRunTask() {
        phase = .starting
        phaseDeadline = clock.now + options.startTimeout
        send(.text(wire.runTask(taskId: taskId)))
    }

    private func sendText(_ text: String) {
        if firstTextAt == nil { firstTextAt = clock.now }
        send(.text(SynthesisProtocol.continueTask(taskId: taskId, text: text)))
        delivery.statistics.withLock {
            $0.textMessagesSent += 1
            $0.textCharactersSent += text.count
        }
    }

    private func sendFinish() {
        phase = .finishing
        phaseDeadline = clock.now + options.finishTimeout
        send(.text(SynthesisProtocol.finishTask(taskId: taskId)))
    }

    private func send(_ frame: OutgoingFrame) {
        outgoing.append(frame)
        transport.requestWrite()
    }

    /// Drops the task and the connection at once; no event. The server's unsent audio is lost (tts-protocol.md
    /// §2, interrupting (a)).
    @discardableResult
    private func cancel() -> Bool {
        guard phase != .idle else { return false }
        phase = .idle
        phaseDeadline = nil
        outgoing = []
        pendingTexts = []
        if connectionOpen {
            connectionOpen = false
            transport.close()
        } else {
            transport.abort()
        }
        return true
    }

    /// Ends the task with `error`: the connection is closed (the service closes it after task-failed too).
    func fail(_ error: SpeechStreamingError) {
        guard cancel() else { return }
        endActive()
        emit(.error(error))
    }

    // MARK: Timers

    private func schedule() {
        guard phase != .idle else { transport.scheduleTimer(after: nil); return }
        var next = lastReceived + (pingSent ? options.responseTimeout : options.pingInterval)
        if let phaseDeadline { next = min(next, phaseDeadline) }
        transport.scheduleTimer(after: max(next - clock.now, .milliseconds(1)))
    }

    func timerFired() {
        guard phase != .idle else { return }
        let now = clock.now
        if let phaseDeadline, now >= phaseDeadline {
            let place = wire.endpoint.displayName
            switch phase {
            case .connecting:
                fail(SpeechStreamingError(.connectTimeout, "no WebSocket connection to \(place) within \(options.connectTimeout)"))
            case .starting:
                fail(SpeechStreamingError(.startTimeout, "the server did not answer run-task with task-started within \(options.startTimeout)"))
            default:
                fail(SpeechStreamingError(.finishTimeout, "the server did not send task-finished within \(options.finishTimeout) of finish-task"))
            }
        } else if phase != .connecting, now - lastReceived >= options.responseTimeout {
            fail(SpeechStreamingError(.serverNotResponding, "the server sent nothing, not even a pong, for \(options.responseTimeout)"))
        } else if phase != .connecting, !pingSent, now - lastReceived >= options.pingInterval {
            pingSent = true
            send(.ping)
        }
        schedule()
    }

    // MARK: Server messages

    func opened() {
        connectionOpen = true
        lastReceived = clock.now
        if phase == .connecting {
            let elapsed = clock.now - startedAt
            delivery.statistics.withLock { $0.connectMilliseconds = milliseconds(elapsed) }
            sendRunTask()
        }
        schedule()
    }

    func closed(code: Int?, reason: String) {
        connectionOpen = false
        if phase == .starting && startedOnKeptLink {
            startedOnKeptLink = false // the kept connection was gone: a new one, once, without an error
            outgoing = []
            connect()
            schedule()
            return
        }
        let detail = code.map { " (close code \($0)\(reason.isEmpty ? "" : ": \(reason)"))" } ?? ""
        fail(SpeechStreamingError(.connectionClosed, "the connection closed while a task was running\(detail)"))
    }

    func received() {
        lastReceived = clock.now
        pingSent = false
    }

    func handle(text: String) {
        guard phase != .idle else { return } // a late message of a finished or cancelled task
        let parsed: (taskId: String?, message: SynthesisProtocol.Message)
        do {
            parsed = try SynthesisProtocol.parse(text)
        } catch {
            fail(error)
            return
        }
        if let id = parsed.taskId, id != taskId {
            fail(SpeechStreamingError(.protocolViolation, "the server sent an event for task \(id), not \(taskId)",
                                      rawJSON: text))
            return
        }
        switch parsed.message {
        case .started:
            guard phase == .starting else { return violation("task-started twice", text) }
            phase = .running
            startedOnKeptLink = false
            phaseDeadline = nil
            let elapsed = clock.now - startedAt
            delivery.statistics.withLock { $0.startMilliseconds = milliseconds(elapsed) }
            emit(.started(SynthesisStarted(taskId: taskId, rawJSON: text)))
            let texts = pendingTexts
            pendingTexts = []
            texts.forEach(sendText)
            if finishRequested { sendFinish() }
        case .sentence(let kind, let index, let original, let words, let characters):
            guard phase == .running || phase == .finishing else { return violation("result before task-started", text) }
            let sentence = SynthesisSentence(index: index, originalText: original, words: words,
                                             characters: characters, rawJSON: text)
            switch kind {
            case "sentence-begin": emit(.sentenceBegin(sentence))
            case "sentence-synthesis":
                synthesisIndex = index
                emit(.sentenceSynthesis(sentence))
            case "sentence-end": emit(.sentenceEnd(sentence))
            default: break // a result type this client does not know
            }
        case .finished(let characters, let words):
            guard phase == .finishing else {
                return violation("the server finished the task before finish-task", text)
            }
            phase = .idle
            phaseDeadline = nil
            idleSince = clock.now
            endActive()
            emit(.completed(SynthesisCompleted(taskId: taskId, characters: characters, words: words,
                                                           rawJSON: text)))
        case .failed(let code, let message):
            fail(SpeechStreamingError(.taskFailed, message.isEmpty ? "the server failed the task" : message,
                                      serverCode: code, rawJSON: text))
        case .other:
            break
        }
    }

    private func emit(_ event: SynthesisEvent) { delivery.deliver(event, generation: generation) }

    /// The task ended: the session may start the next (unless it already moved on to a newer task).
    private func endActive() { active.withLock { if $0 == generation { $0 = nil } } }

    private func violation(_ what: String, _ text: String) {
        fail(SpeechStreamingError(.protocolViolation, what, rawJSON: text))
    }

    func handle(audio: UnsafeRawBufferPointer) {
        guard phase == .running || phase == .finishing else {
            if phase == .starting { violation("a binary frame before task-started", "") }
            return
        }
        if !firstAudioSeen {
            firstAudioSeen = true
            if let firstTextAt {
                let elapsed = clock.now - firstTextAt
                delivery.statistics.withLock { $0.firstAudioMilliseconds = milliseconds(elapsed) }
            }
        }
        delivery.statistics.withLock {
            $0.audioFrames += 1
            $0.audioBytes += audio.count
        }
        emit(.audio(SynthesisAudio(bytes: Array(audio), sentenceIndex: synthesisIndex)))
        synthesisIndex = nil
    }

    func nextOutgoing() -> OutgoingFrame? {
        outgoing.isEmpty ? nil : outgoing.removeFirst()
    }

    func closeWritten() {
        if closeRequested { closeFrameSent.signal() }
    }

    private func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// The transport's reports, on its service thread.
extension SynthesisEngine: WebSocketTransportDelegate {
    func transportWoke() { runCommands() }
    func transportTimerFired() { timerFired() }
    func transportPacingTimerFired() {}
    func transportDidOpen() { opened() }

    func transportDidFail(reason: String, httpStatus: Int) {
        fail(ConnectionFailure.error(reason: reason, httpStatus: httpStatus, endpoint: wire.endpoint))
    }

    func transportDidReceiveFrame() { received() }

    func transportDidReceiveText(_ text: String) {
        handle(text: text)
        schedule()
    }

    func transportDidReceiveOversizedMessage(bytes: Int) {
        fail(SpeechStreamingError(.oversizedMessage, "the server sent (or its frame header claimed) a message of "
                                  + "\(bytes) bytes, more than the limit of \(options.maxMessageBytes)"))
    }

    func transportDidReceiveBinary(bytes: Int) {} // not called: deliversBinary is set
    func transportDidReceiveBinaryMessage(_ bytes: UnsafeRawBufferPointer) { handle(audio: bytes) }
    func transportDidSendClose() { closeWritten() }
    func transportDidClose(code: Int?, reason: String) { closed(code: code, reason: reason) }
    func transportNextOutgoing() -> OutgoingFrame? { nextOutgoing() }
}
