import CWebSockets
import Dispatch
import Synchronization
import Threads

/// The network-thread half of a session: carries out the ``SessionMachine``'s actions over a
/// ``WebSocketTransport``, moves audio from the ring to the socket, and turns server messages into events.
///
/// Threads: ``enqueue(_:)`` runs on the caller's audio thread (real-time safe); ``post(_:)`` on any thread;
/// everything else on the transport's service thread. Invariant behind `@unchecked Sendable`: the
/// non-atomic state below is touched only on the service thread.
final class SessionEngine: @unchecked Sendable {
    enum Command {
        case start(epoch: UInt32, opusHeader: OpusStreamHeader)
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
    /// Set after a command is queued: the network thread takes the commands' lock only when it is set, never
    /// per audio frame.
    private let commandsPending = Atomic<Bool>(false)
    private let closeFrameSent = DispatchSemaphore(value: 0)
    private let isShutDown = Atomic<Bool>(false)

    // Service thread only.
    var machine: SessionMachine
    private let clockOrigin = ContinuousClock.now
    private var inputs: [SessionMachine.Input] = []
    private var processing = false
    var taskId = ""
    var taskEpoch: UInt32 = 0
    private let frames: FrameBuilder
    var replay: ReplayBuffer
    private var replayQueue: [(bytes: [UInt8], milliseconds: Int)] = []
    /// Set while a restarted task catches up after a reconnection.
    private var pacer: CatchUpPacer?
    private var texts: [String] = []
    private var pingPending = false
    private var closeRequested = false
    private let frameBytes: Int
    private let frameMilliseconds: Int
    /// The caller marked its last audio (``AudioRing/endsAudio``): the task's audio ends once it is out.
    private var audioEndMarked = false
    /// The last ``OutgoingFrame/binaryInPlace(_:)`` points into the frame builder: it is reused at the next call.
    private var frameInFlight = false
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
        let milliseconds = Int(options.frameDuration.components.seconds * 1000
                               + options.frameDuration.components.attoseconds / 1_000_000_000_000_000)
        frameMilliseconds = milliseconds
        frameBytes = max(2, wire.sampleRate * milliseconds / 1000 * 2)
        frames = FrameBuilder(format: wire.format, frameBytes: frameBytes, frameMilliseconds: milliseconds,
                              maxBytes: 16 * 1024, headroom: afe_ws_pre(), ringCapacity: ring.capacity)
        // PCM: wake once a frame's worth is queued; Opus: at every packet (about 20 ms).
        wakeThreshold = wire.format == .pcm ? frameBytes + AudioRing.headerBytes : 1
        replay = ReplayBuffer(format: wire.format, sampleRate: wire.sampleRate,
                              capacityBytes: options.reconnection.replayCapacityBytes)
        machine = SessionMachine(timing: SessionMachine.Timing(options), reconnection: options.reconnection,
                                 reusesConnection: wire.reusesConnection)
        transport = try WebSocketTransport(usesTLS: wire.endpoint.usesTLS, caFilePath: options.caFilePath,
                                           connectTimeout: options.connectTimeout,
                                           maxMessageBytes: options.maxMessageBytes)
        transport.delegate = self
        try transport.startServiceThread()
    }

    deinit { transport.shutdown() }

    // MARK: Any thread

    /// Queues audio for the running task and wakes the network thread when a frame's worth is waiting.
    ///
    /// Caller's audio thread. Real-time safe: no allocation, no lock; at most one non-blocking eventfd
    /// write per network-thread wake-up.
    /// `tag`: Opus, the packet's duration (48 kHz samples); ``AudioRing/endsAudio`` marks the task's last audio
    /// (an empty record may carry it alone).
    func enqueue(_ audio: UnsafeRawBufferPointer, tag: UInt32 = 0) -> AudioSendResult {
        let epoch = control.audioEpoch.load(ordering: .acquiring)
        guard epoch & 1 == 1 else { return .inactive }
        guard !audio.isEmpty || tag & AudioRing.endsAudio != 0 else { return .accepted }
        guard ring.write(audio, epoch: epoch, tag: tag) else { return .queueFull }
        if ring.queuedBytes >= wakeThreshold, !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            transport.wake()
        }
        return .accepted
    }

    /// Hands a command to the network thread. Any thread; not real-time safe (takes a lock, allocates).
    func post(_ command: Command) {
        commands.withLock { $0.append(command) }
        commandsPending.store(true, ordering: .releasing)
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
                // Opus: the frame being built is dropped; its packets are kept and muxed again, in order.
                if wire.format == .opus { frames.discardFrame() }
                replayQueue = replay.replayFrames(frameBytes: frameBytes, frameMilliseconds: frameMilliseconds,
                                                  packer: frames.packer)
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
        frames.reset()
        frameInFlight = false
        audioEndMarked = false
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
        guard commandsPending.exchange(false, ordering: .acquiring) else { return }
        let pending = commands.takeAll()
        for command in pending {
            switch command {
            case .start(let epoch, let opusHeader):
                taskEpoch = epoch
                audioEndMarked = false
                frameInFlight = false
                frames.begin(opusHeader: opusHeader)
                replay.reset(preSkip: opusHeader.preSkip)
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

    /// Moves the running task's audio from the ring into the frame being built, until the frame is ready or
    /// the ring is empty; skips audio of ended tasks. Real-time safe (no allocation, no lock).
    /// - Returns: whether the ring holds none of the task's audio now (a partial frame may go when draining).
    private func pullAudio() -> Bool {
        let producerEpoch = control.audioEpoch.load(ordering: .acquiring)
        while let record = ring.peek() {
            if record.epoch == taskEpoch && taskEpoch != 0 {
                guard !frames.isReady(draining: false), take(record) else { return false }
            } else if record.epoch != producerEpoch {
                counters.audioBytesDropped.wrappingAdd(record.length, ordering: .relaxed)
                ring.skip(length: record.length)
            } else {
                return true // a newer task's audio, queued before its start command arrived
            }
        }
        return true
    }

    /// Takes one record of the running task into the frame; false when the frame has no room for it yet.
    private func take(_ record: (length: Int, epoch: UInt32, tag: UInt32)) -> Bool {
        let ends = record.tag & AudioRing.endsAudio != 0
        switch wire.format {
        case .pcm:
            guard frames.canTake(pcm: record.length) else { return false }
            frames.takePCM(from: ring, length: record.length)
        case .opus:
            if record.length == 0 {
                ring.skip(length: 0)
            } else {
                guard frames.hasRoom(packet: record.length) else { return false }
                let keeps = options.reconnection.isEnabled
                frames.takeOpus(from: ring, length: record.length, advance48k: Int(record.tag & AudioRing.durationMask),
                                end: record.tag & AudioRing.endsStream != 0) { packet, granule in
                    if keeps { counters.replayDroppedBytes.wrappingAdd(replay.append(packet: packet, granuleEnd: granule),
                                                                      ordering: .relaxed) }
                }
            }
        }
        if ends { audioEndMarked = true }
        return true
    }

    func dropStaleAudio() {
        let producerEpoch = control.audioEpoch.load(ordering: .acquiring)
        while let record = ring.peek(), record.epoch != taskEpoch || taskEpoch == 0, record.epoch != producerEpoch {
            counters.audioBytesDropped.wrappingAdd(record.length, ordering: .relaxed)
            ring.skip(length: record.length)
        }
    }

    /// Audio taken from the ring that has not gone out yet (the frame being built).
    var pendingAudioBytes: Int { frames.pendingBytes }

    /// The next frame for the socket: control messages first, then a ping, then replayed and live audio.
    /// Live audio goes out in place from the ``FrameBuilder``'s buffer: no allocation, no lock per frame.
    func nextOutgoing() -> OutgoingFrame? {
        if frameInFlight { // lws_write has taken the last frame (sent it, or copied what the socket did not take)
            frameInFlight = false
            frames.sent()
        }
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
            count(frame.bytes.count)
            return .binary(frame.bytes)
        }
        let exhausted = pullAudio()
        if audioEndMarked {
            // The caller's last audio is in: its task's audio ends here, as stop() would end it.
            audioEndMarked = false
            if control.stopAudio() { feed(.stop) }
        }
        if frames.isReady(draining: machine.isDraining && exhausted) {
            if options.reconnection.isEnabled && wire.format == .pcm {
                counters.replayDroppedBytes.wrappingAdd(replay.append(pcm: frames.payload), ordering: .relaxed)
            }
            pacer?.sent(milliseconds: frames.milliseconds(sampleRate: wire.sampleRate))
            count(frames.count)
            frameInFlight = true
            return .binaryInPlace(frames.payload)
        }
        pacer = nil // caught up: from here on, audio flows as the caller sends it
        if machine.isDraining && exhausted && frames.pendingBytes == 0 {
            feed(.audioDrained)
            if !texts.isEmpty { return nextOutgoing() }
        }
        return nil
    }

    private func count(_ bytes: Int) {
        counters.audioFramesSent.wrappingAdd(1, ordering: .relaxed)
        counters.audioBytesSent.wrappingAdd(bytes, ordering: .relaxed)
    }
}
