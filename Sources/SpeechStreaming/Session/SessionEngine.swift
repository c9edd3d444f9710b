import Dispatch
import Synchronization

/// The network-thread half of a session: carries out the ``SessionMachine``'s actions over a
/// ``WebSocketTransport``, moves audio from the ring to the socket, and turns server messages into events.
///
/// Threads: ``enqueue(_:)`` runs on the caller's audio thread (real-time safe); ``post(_:)`` on any thread;
/// everything else on the transport's service thread. Invariant behind `@unchecked Sendable`: the
/// non-atomic state below is touched only on the service thread.
final class SessionEngine: @unchecked Sendable {
    enum Command {
        case start(epoch: UInt32)
        case stop
        case cancel
        /// Cancel, then signal ``closeFrameSent`` once the close frame is out.
        case close
        case updateContext([ContextMessage])
    }

    let wire: any WireProtocol
    let options: ConnectionOptions
    let transport: WebSocketTransport
    let ring: AudioRing
    let counters: StatisticsCounters
    let control: SessionControl
    let delivery: EventDelivery
    let wakePending = Atomic<Bool>(false)
    private let wakeThreshold: Int
    private let commands = Locked<[Command]>([])
    private let closeFrameSent = DispatchSemaphore(value: 0)
    private let isShutDown = Atomic<Bool>(false)

    // Service thread only.
    var machine: SessionMachine
    private let clockOrigin = ContinuousClock.now
    private var inputs: [SessionMachine.Input] = []
    private var processing = false
    var taskId = ""
    var taskEpoch: UInt32 = 0
    private var assembler: FrameAssembler
    var replay: ReplayBuffer
    private var replayQueue: [(bytes: [UInt8], milliseconds: Int)] = []
    /// Set while a restarted task catches up after a reconnection.
    private var pacer: CatchUpPacer?
    private var texts: [String] = []
    private var pingPending = false
    private var closeRequested = false
    private let frameBytes: Int
    private let frameMilliseconds: Int
    private let scratch: UnsafeMutableRawPointer
    /// The server message being handled, for the events it causes.
    var currentRaw: String?
    var startedSessionId: String?
    /// The last context passed to `updateContext` in this task.
    private var latestContext: [ContextMessage]?
    var sentences = SentenceTracker()

    init(wire: any WireProtocol, options: ConnectionOptions, control: SessionControl, delivery: EventDelivery,
         counters: StatisticsCounters) throws {
        self.counters = counters
        self.wire = wire
        self.options = options
        self.control = control
        self.delivery = delivery
        ring = AudioRing(minimumCapacity: options.audioQueueCapacityBytes)
        scratch = .allocate(byteCount: ring.capacity, alignment: 16)
        let milliseconds = Int(options.frameDuration.components.seconds * 1000
                               + options.frameDuration.components.attoseconds / 1_000_000_000_000_000)
        frameMilliseconds = milliseconds
        frameBytes = max(2, wire.sampleRate * milliseconds / 1000 * 2)
        switch wire.format {
        case .pcm:
            assembler = FrameAssembler(framing: .pcm(frameBytes: frameBytes))
            wakeThreshold = frameBytes + AudioRing.headerBytes
        case .opus:
            assembler = FrameAssembler(framing: .ogg(frameMilliseconds: milliseconds, maxBytes: 16 * 1024))
            wakeThreshold = 1
        }
        replay = ReplayBuffer(format: wire.format, sampleRate: wire.sampleRate,
                              capacityBytes: options.reconnection.replayCapacityBytes)
        machine = SessionMachine(timing: SessionMachine.Timing(options), reconnection: options.reconnection,
                                 reusesConnection: wire.reusesConnection)
        transport = try WebSocketTransport(usesTLS: wire.endpoint.usesTLS, caFilePath: options.caFilePath,
                                           connectTimeout: options.connectTimeout,
                                           maxMessageBytes: options.maxMessageBytes)
        transport.delegate = self
        transport.startServiceThread()
    }

    deinit {
        transport.shutdown()
        scratch.deallocate()
    }

    // MARK: Any thread

    /// Queues audio for the running task and wakes the network thread when a frame's worth is waiting.
    ///
    /// Caller's audio thread. Real-time safe: no allocation, no lock; at most one non-blocking eventfd
    /// write per network-thread wake-up.
    func enqueue(_ audio: UnsafeRawBufferPointer) -> AudioSendResult {
        let epoch = control.audioEpoch.load(ordering: .acquiring)
        guard epoch & 1 == 1 else { return .inactive }
        guard !audio.isEmpty else { return .accepted }
        guard ring.write(audio, epoch: epoch) else { return .queueFull }
        if ring.queuedBytes >= wakeThreshold, !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            transport.wake()
        }
        return .accepted
    }

    /// Hands a command to the network thread. Any thread; not real-time safe (takes a lock, allocates).
    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        transport.wake()
    }

    /// Posts `cancel`, waits until the connection's close frame (1000) has been written, at most
    /// ``closeFrameWait``, then stops the network thread. Any thread but the network thread.
    func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        post(.close)
        _ = closeFrameSent.wait(timeout: .now() + Self.closeFrameWait)
        transport.shutdown()
    }

    /// The longest `close()` waits for the close frame to go out (a server that stopped reading never takes it).
    static let closeFrameWait = DispatchTimeInterval.seconds(2)

    /// The close frame was written, or there was none to write.
    func closeWritten() {
        if closeRequested { closeFrameSent.signal() }
    }

    var statistics: SessionStatistics { counters.snapshot(overruns: ring.overruns.load(ordering: .relaxed)) }

    // MARK: State machine

    var now: Duration { clockOrigin.duration(to: .now) }

    /// Feeds the machine and carries out its actions; inputs arriving meanwhile are queued, so actions
    /// always run in order.
    func feed(_ input: SessionMachine.Input) {
        inputs.append(input)
        guard !processing else { return }
        processing = true
        while !inputs.isEmpty {
            let next = inputs.removeFirst()
            for action in machine.handle(next, at: now) { perform(action) }
        }
        processing = false
        let time = now
        transport.scheduleTimer(after: machine.nextDeadline.map { max($0 - time, .milliseconds(1)) })
    }

    private func perform(_ action: SessionMachine.Action) {
        switch action {
        case .connect:
            transport.connect(to: wire.endpoint, headers: wire.handshakeHeaders)
        case .abortConnection:
            transport.abort()
        case .closeConnection:
            transport.close()
        case .sendStart:
            taskId = TaskIdentifier.make()
            send(wire.startMessage(taskId: taskId))
        case .sendFinish:
            send(wire.finishMessage(taskId: taskId))
        case .sendPing:
            pingPending = true
            transport.requestWrite()
        case .beginAudio(let isReplay):
            pacer = nil
            if isReplay {
                replayQueue = replay.replayFrames(frameBytes: frameBytes, frameMilliseconds: frameMilliseconds)
                sentences.resume(atMilliseconds: replay.startMilliseconds)
                pacer = CatchUpPacer(start: now, speed: options.reconnection.catchUpSpeed)
            }
            sendContext()
            transport.requestWrite()
        case .endTask:
            endTask()
        case .report(let report):
            deliver(report)
        }
    }

    /// Sends the latest context update of the task, if there is one, as continue-task.
    private func sendContext() {
        if let context = latestContext, let message = wire.contextMessage(taskId: taskId, context: context) {
            send(message)
        }
    }

    private func send(_ text: String) {
        texts.append(text)
        transport.requestWrite()
    }

    private func endTask() {
        control.endTask(epoch: taskEpoch)
        taskEpoch = 0
        counters.audioBytesDropped.wrappingAdd(pendingAudioBytes, ordering: .relaxed)
        dropStaleAudio()
        assembler.reset()
        replay.reset()
        replayQueue = []
        pacer = nil
        transport.schedulePacingTimer(after: nil)
        texts = []
        pingPending = false
    }

    private func deliver(_ report: SessionMachine.Report) {
        let raw = currentRaw ?? ""
        switch report {
        case .started:
            delivery.deliver(.started(TaskStarted(taskId: taskId, sessionId: startedSessionId, rawJSON: raw)))
        case .completed:
            delivery.deliver(.completed(TaskCompleted(taskId: taskId, rawJSON: raw)))
        case .failed(let error):
            delivery.deliver(.error(error.redacting(wire.secrets)))
        case .reconnecting(var reconnection):
            counters.reconnectionAttempts.wrappingAdd(1, ordering: .relaxed)
            reconnection.cause = reconnection.cause.redacting(wire.secrets)
            delivery.deliver(.reconnecting(reconnection))
        }
    }

    // MARK: Commands

    func runCommands() {
        let pending = commands.takeAll()
        for command in pending {
            switch command {
            case .start(let epoch):
                taskEpoch = epoch
                assembler.reset()
                replay.reset()
                replayQueue = []
                sentences.reset()
                latestContext = nil
                feed(.start)
            case .stop:
                feed(.stop)
                transport.requestWrite()
            case .cancel:
                feed(.cancel)
            case .close:
                closeRequested = true
                feed(.cancel)
                if transport.closing.isEmpty { closeWritten() }
            case .updateContext(let context):
                // The server takes continue-task only once the task has started; until then (and for the
                // new task after a reconnection) the latest context waits and goes out with the audio.
                guard machine.phase != .idle else { break }
                latestContext = context
                if machine.audioMayFlow { sendContext() }
            }
        }
    }

    // MARK: Audio

    /// Moves the running task's audio from the ring to the assembler; skips audio of ended tasks.
    private func pullAudio() {
        let producerEpoch = control.audioEpoch.load(ordering: .acquiring)
        while let record = ring.peek() {
            if record.epoch == taskEpoch && taskEpoch != 0 {
                ring.read(length: record.length, into: scratch)
                assembler.append(UnsafeRawBufferPointer(start: scratch, count: record.length))
            } else if record.epoch != producerEpoch {
                counters.audioBytesDropped.wrappingAdd(record.length, ordering: .relaxed)
                ring.skip(length: record.length)
            } else {
                break // a newer task's audio, queued before its start command arrived
            }
        }
    }

    func dropStaleAudio() {
        let producerEpoch = control.audioEpoch.load(ordering: .acquiring)
        while let record = ring.peek(), record.epoch != taskEpoch || taskEpoch == 0, record.epoch != producerEpoch {
            counters.audioBytesDropped.wrappingAdd(record.length, ordering: .relaxed)
            ring.skip(length: record.length)
        }
    }

    /// Audio taken from the ring that has not gone out yet (a partial frame in the assembler).
    var pendingAudioBytes: Int { assembler.pendingBytes }

    /// The next frame for the socket: control messages first, then a ping, then replayed and live audio.
    func nextOutgoing() -> OutgoingFrame? {
        if !texts.isEmpty {
            counters.textMessagesSent.wrappingAdd(1, ordering: .relaxed)
            return .text(texts.removeFirst())
        }
        if pingPending {
            pingPending = false
            return .ping
        }
        guard machine.audioMayFlow else { return nil }
        if let wait = pacer?.wait(at: now) {
            transport.schedulePacingTimer(after: wait)
            return nil
        }
        if !replayQueue.isEmpty {
            let frame = replayQueue.removeFirst()
            pacer?.sent(milliseconds: Double(frame.milliseconds))
            counters.replayedBytes.wrappingAdd(frame.bytes.count, ordering: .relaxed)
            return binary(frame.bytes)
        }
        pullAudio()
        if let frame = assembler.nextFrame(draining: machine.isDraining) {
            if options.reconnection.isEnabled {
                counters.replayDroppedBytes.wrappingAdd(replay.append(frame), ordering: .relaxed)
            }
            pacer?.sent(milliseconds: milliseconds(of: frame))
            return binary(frame.bytes)
        }
        pacer = nil // caught up: from here on, audio flows as the caller sends it
        if machine.isDraining {
            feed(.audioDrained)
            if !texts.isEmpty { return nextOutgoing() }
        }
        return nil
    }

    /// The audio a frame holds: PCM by its length, Ogg by its audio pages' times.
    private func milliseconds(of frame: AudioFrame) -> Double {
        let audio = frame.pages.filter { !$0.isHeader && !$0.isOpaque }
        if let first = audio.first, let last = audio.last { return Double(last.endMilliseconds - first.startMilliseconds) }
        return wire.format == .pcm ? Double(frame.bytes.count / 2) * 1000 / Double(wire.sampleRate) : 0
    }

    private func binary(_ bytes: [UInt8]) -> OutgoingFrame {
        counters.audioFramesSent.wrappingAdd(1, ordering: .relaxed)
        counters.audioBytesSent.wrappingAdd(bytes.count, ordering: .relaxed)
        return .binary(bytes)
    }
}
