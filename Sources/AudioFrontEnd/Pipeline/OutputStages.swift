/// What happens to each processed frame after the echo canceller and noise suppressor: voice activity and
/// speech segments, conversion to the output rate, and Opus (and Ogg Opus) encoding.
/// Created on the control thread (allocates, may throw); ``process(_:position:)`` and ``finish(totalOutput:)``
/// run on the processing thread and are real-time safe.
final class OutputStages {
    let processingRate: Int
    let outputRate: Int
    private let events: EventChannel
    private let detector: (any VoiceActivityDetector)?
    /// The detector when it is the energy one and the onset follows its noise deviation.
    private let fluctuationDetector: EnergyVoiceActivityDetector?
    private let fluctuatingNoiseOnset: FrontEndConfiguration.FluctuatingNoiseOnset?
    /// The energy detector when its voicing rule is off during playback (``EnergyVoiceActivityDetector/Configuration/Voicing/whilePlaying``).
    private let quietVoicingDetector: EnergyVoiceActivityDetector?
    /// The energy detector when segment edges are searched with a lower threshold (``FrontEndConfiguration/SpeechEdges``).
    private let edgeDetector: EnergyVoiceActivityDetector?
    /// The edge search (used only with ``edgeDetector``; not optional, as ``segmenter``).
    private var edgeSearch: SpeechEdgeSearch
    /// Never fed without voice detection (it stays idle). Not optional: an optional of this struct took an
    /// out-of-line enum-tag call on each of the frame's accesses.
    private var segmenter: SpeechSegmenter
    /// The segmenter's onset without and with the far end playing (``FrontEndConfiguration/EchoGate``).
    private let onset: SpeechSegmenter.Onset
    private let playbackOnset: SpeechSegmenter.Onset
    private let resampler: SpeexResampler?
    private let resampled: UnsafeMutableBufferPointer<Int16>
    private let encoder: Opus.Encoder?
    private let writer: OggOpusWriter?
    private let packetSamples: UnsafeMutableBufferPointer<Int16>
    private var packetFill = 0
    private let packet: UnsafeMutableBufferPointer<UInt8>
    private var packetCount = 0
    private var encodedSamples = 0
    /// Output samples delivered so far.
    private(set) var outputCount = 0
    /// Receives the output and the packets on the processing thread before their events are written (set before
    /// the front end starts; see ``FrontEnd/audioSink``).
    var sink: (any FrontEndAudioSink)?
    /// The Ogg stream's pre-skip (48 kHz): the encoder's lookahead and the stages' start-up delay.
    let opusPreSkip: Int
    /// Granule positions the packets so far advanced (48 kHz).
    private var granule48k = 0
    /// The stages' delay (processing rate) of the frames coming in.
    let processingDelaySamples: Int
    /// The same in ms, subtracted from the segmenter's times so speech events are on the mic's timeline.
    /// The processing delay in ms, rounded: what speech and barge-in times are moved back by (mic timeline).
    let speechTimeOffsetMilliseconds: Int

    /// `processingDelaySamples`: how far the frames passed to ``process(_:position:speechAllowed:)`` lag the mic
    /// (the echo canceller's and noise suppressor's delay, processing rate). Speech times are corrected by it,
    /// and the Ogg stream's pre-skip includes it, so a player's decoded output lines up with the mic.
    /// `hostedDetector`: the WebRTC VAD when the echo canceller's `AudioProcessing` runs it
    /// (``HostedWebRTCVoiceDetector``), used instead of a detector of its own.
    init(configuration: FrontEndConfiguration, events: EventChannel, processingDelaySamples: Int,
         hostedDetector: (any VoiceActivityDetector)? = nil) throws {
        let rate = configuration.processingRate
        processingRate = rate
        self.processingDelaySamples = processingDelaySamples
        speechTimeOffsetMilliseconds = (processingDelaySamples * 1000 + rate / 2) / rate
        outputRate = configuration.effectiveOutputRate
        self.events = events
        if let detection = configuration.voiceDetection {
            try detection.fluctuatingNoiseOnset?.validate()
            try detection.speechEdges?.validate()
            fluctuatingNoiseOnset = detection.fluctuatingNoiseOnset
            edgeSearch = SpeechEdgeSearch(detection.speechEdges ?? FrontEndConfiguration.SpeechEdges())
            switch detection.detector {
            case .webRTC(var c):
                c.sampleRate = rate
                detector = try hostedDetector ?? WebRTCVoiceActivityDetector(c)
                fluctuationDetector = nil
                quietVoicingDetector = nil
                edgeDetector = nil
            case .energy(var c):
                c.sampleRate = rate
                let energy = try EnergyVoiceActivityDetector(c)
                detector = energy
                fluctuationDetector = detection.fluctuatingNoiseOnset == nil ? nil : energy
                quietVoicingDetector = c.voicing?.whilePlaying == false ? energy : nil
                edgeDetector = detection.speechEdges == nil ? nil : energy
            }
            var s = detection.segmenter
            s.sampleRate = rate
            segmenter = try SpeechSegmenter(s)
            let gate = detection.echoGate
            onset = SpeechSegmenter.Onset(frames: s.onsetMilliseconds / 10, backdateFrames: gate.startBackdateMilliseconds / 10)
            playbackOnset = SpeechSegmenter.Onset(frames: gate.playbackOnsetMilliseconds / 10,
                                                  misses: gate.playbackOnsetGapMilliseconds / 10,
                                                  backdateFrames: gate.startBackdateMilliseconds / 10,
                                                  strongFrames: gate.strongOnsetMilliseconds / 10)
        } else {
            detector = nil
            fluctuationDetector = nil
            quietVoicingDetector = nil
            edgeDetector = nil
            edgeSearch = SpeechEdgeSearch(FrontEndConfiguration.SpeechEdges())
            fluctuatingNoiseOnset = nil
            segmenter = try SpeechSegmenter(SpeechSegmenter.Configuration())
            onset = SpeechSegmenter.Onset(frames: 1)
            playbackOnset = onset
        }
        resampler = outputRate == rate ? nil : try SpeexResampler(inputRate: rate, outputRate: outputRate)
        resampled = .zeroed(capacity: Self.maximumOutputPerFrame(configuration) * 2)
        if let encoding = configuration.encoding {
            var opus = encoding.opus
            opus.sampleRate = rate
            let encoder = try Opus.Encoder(configuration: opus)
            self.encoder = encoder
            // Players drop the pre-skip: the encoder's lookahead and the stages' delay (start-up, not mic).
            let preSkip = encoder.preSkip + processingDelaySamples * 48000 / rate
            opusPreSkip = preSkip
            writer = try encoding.ogg.map { ogg in
                try OggOpusWriter(channelCount: encoder.channelCount, inputSampleRate: rate,
                                  preSkip: preSkip,
                                  configuration: ogg) { [events] page in
                    events.emitBytes(.oggPage, page, position: 0)
                }
            }
            packetSamples = .allocate(capacity: opus.frameLength)
        } else {
            encoder = nil
            writer = nil
            opusPreSkip = 0
            packetSamples = .allocate(capacity: 1)
        }
        packetSamples.initialize(repeating: 0)
        packet = .zeroed(capacity: Opus.maximumPacketBytes)
    }

    deinit {
        resampled.deallocate()
        packetSamples.deallocate()
        packet.deallocate()
    }

    /// The most output samples one processed frame can yield.
    static func maximumOutputPerFrame(_ configuration: FrontEndConfiguration) -> Int {
        configuration.effectiveOutputRate / 100 + 64
    }

    /// Encoded bytes of an average 10 ms frame with headroom: twice the bitrate's share (VBR peaks), twice again
    /// with Ogg pages on (packets travel as packets and inside pages), plus page headers; 0 without encoding.
    static func typicalBytesPerFrame(_ configuration: FrontEndConfiguration) -> Int {
        guard let encoding = configuration.encoding else { return 0 }
        let packetBytes = 2 * encoding.opus.bitrate / 8 / 100
        return encoding.ogg == nil ? packetBytes : 2 * packetBytes + 64
    }

    /// Whether a speech segment is open (false without voice detection). Real-time safe.
    var isInSpeechSegment: Bool { segmenter.isInSegment }

    /// Opens a speech segment after the frame just processed unless one is open, back-dated by `framesBack`
    /// frames (``SpeechSegmenter/startSegment(framesBack:)``); nothing without voice detection. The processing
    /// thread, after ``process`` has taken that frame; real-time safe.
    func startSpeech(framesBack: Int) {
        guard detector != nil else { return }
        handle(segmenter.startSegment(framesBack: framesBack))
    }

    /// Takes one processed frame (or the real part of the zero-padded last one) at the processing rate.
    /// `speechAllowed` false (the frame is residual echo, see ``EchoSpeechGate``) makes the frame silence for
    /// the segmenter whatever the detector says; `duringPlayback` (the far end plays) makes a segment start
    /// only after the echo gate's longer playback onset, or sooner on frames with `strongEvidence`
    /// (``EchoSpeechGate/isStrongEvidence``). Returns whether the detector found speech in the frame (false without
    /// a detector), for the barge-in decision.
    @discardableResult
    func process(_ frame: UnsafeBufferPointer<Int16>, position: Int, speechAllowed: Bool = true,
                 duringPlayback: Bool = false, strongEvidence: Bool = false,
                 detectorFrame: UnsafeBufferPointer<Int16>? = nil) -> Bool {
        var detected = false
        // Optional chaining on the stored detector: binding it to a local retained and released it every frame.
        if detector != nil {
            quietVoicingDetector?.suspendsVoicing = duringPlayback
            if position < processingDelaySamples {
                // The stages' start-up, not mic audio: its zeros would teach the detector a silent noise floor.
                handle(segmenter.process(isSpeech: false, detectorSpeech: false, onset: onset))
            } else if frame.count == detector?.frameLength, detector?.process(detectorFrame ?? frame).isOK == true {
                detected = detector?.isSpeech == true
                // The edge search runs outside playback, in steady noise, on frames the gate allows.
                let edge = !duringPlayback && speechAllowed ? searchEdge() : nil
                var frameOnset = duringPlayback ? playbackOnset : quietOnset()
                if edge != nil {
                    (frameOnset.leadFrames, frameOnset.trailFrames, frameOnset.edgeGapFrames)
                        = (edgeSearch.leadFrames, edgeSearch.trailFrames, edgeSearch.gapFrames)
                }
                handle(segmenter.process(isSpeech: detected && speechAllowed, detectorSpeech: detected, onset: frameOnset,
                                          strongEvidence: duringPlayback && strongEvidence, edge: edge == true))
            }
        }
        deliver(frame)
        encode(frame)
        return detected
    }

    /// The edge search's verdict on the frame the energy detector just took (``SpeechEdgeSearch/judge(_:)``):
    /// nil without the edges or when the search is off for the frame.
    private func searchEdge() -> Bool? {
        // Optional chaining on the stored detector: binding it to a local retained and released it every frame.
        guard edgeDetector != nil else { return nil }
        return edgeSearch.judge(edgeDetector!)
    }

    /// The onset outside playback: the segmenter's, longer in fluctuating noise (``FrontEndConfiguration/FluctuatingNoiseOnset``).
    private func quietOnset() -> SpeechSegmenter.Onset {
        guard let fluctuationDetector, let fluctuatingNoiseOnset else { return onset }
        var o = onset
        o.frames = fluctuatingNoiseOnset.frames(deviation: fluctuationDetector.noiseDeviationDecibels, baseFrames: onset.frames)
        return o
    }

    /// Ends the stream: delivers exactly `totalOutput` samples in all, closes the speech segment and the
    /// Opus stream.
    func finish(totalOutput: Int) {
        handle(segmenter.finish())
        if let resampler {
            let n = resampler.flush(into: resampled)
            emit(UnsafeBufferPointer(rebasing: resampled[0..<min(n, max(0, totalOutput - outputCount))]))
        }
        // Pad with silence if the two-stage rounding left one sample short.
        while outputCount < totalOutput {
            let n = min(resampled.count, totalOutput - outputCount)
            UnsafeMutableBufferPointer(rebasing: resampled[0..<n]).update(repeating: 0)
            emit(UnsafeBufferPointer(rebasing: resampled[0..<n]))
        }
        finishEncoding()
    }

    private func handle(_ event: SpeechSegmenter.Event?) {
        switch event {
        case .speechStart(let at, _):
            events.emitSpeech(started: true, milliseconds: max(0, at.milliseconds - speechTimeOffsetMilliseconds))
        case .speechEnd(let at, _, _):
            events.emitSpeech(started: false, milliseconds: max(0, at.milliseconds - speechTimeOffsetMilliseconds))
        case nil: break
        }
    }

    private func deliver(_ frame: UnsafeBufferPointer<Int16>) {
        guard let resampler else { return emit(frame) }
        let produced = resampler.process(frame, into: resampled).produced
        emit(UnsafeBufferPointer(rebasing: resampled[0..<produced]))
    }

    private func emit(_ samples: UnsafeBufferPointer<Int16>) {
        guard !samples.isEmpty else { return }
        sink?.frontEnd(processed: samples, position: outputCount) // first: the socket path never waits for the event
        events.emitAudio(samples, position: outputCount)
        outputCount += samples.count
    }

    private func encode(_ frame: UnsafeBufferPointer<Int16>) {
        guard encoder != nil else { return }
        encodedSamples += frame.count
        var offset = 0
        while offset < frame.count {
            let n = min(frame.count - offset, packetSamples.count - packetFill)
            (packetSamples.baseAddress! + packetFill).update(from: frame.baseAddress! + offset, count: n)
            packetFill += n
            offset += n
            if packetFill == packetSamples.count { encodePacket(last: false) }
        }
    }

    private func encodePacket(last: Bool) {
        guard let encoder else { return }
        let bytes = encoder.encode(frame: UnsafeBufferPointer(packetSamples), into: packet)
        packetFill = 0
        guard bytes > 0 else { return }
        let payload = UnsafeBufferPointer(rebasing: packet[0..<bytes])
        let duration = encoder.configuration.frameDuration.rawValue
        if let sink {
            // The last packet's advance trims the stream to the real input (RFC 7845 §4.4), as the writer does.
            var advance = duration
            if last {
                let input = max(0, encodedSamples - processingDelaySamples)
                let end = opusPreSkip + (input * Opus.granuleRate + processingRate - 1) / processingRate
                advance = max(0, min(duration, end - granule48k))
            }
            sink.frontEnd(encoded: UnsafeRawBufferPointer(payload), granuleAdvance48k: advance, isLast: last)
        }
        granule48k += duration
        events.emitBytes(.opusPacket, UnsafeRawBufferPointer(payload), position: packetCount,
                         duration: encoder.configuration.frameDuration.rawValue)
        packetCount += 1
        if last {
            // The end trim counts from the pre-skip: the stream's first processingDelaySamples are not mic audio.
            writer?.finish(lastPacket: payload, inputSampleCount: max(0, encodedSamples - processingDelaySamples))
        } else {
            writer?.write(packet: payload)
        }
    }

    /// Encodes the encoder's lookahead of silence past the end so no input is lost, then ends the Ogg stream.
    private func finishEncoding() {
        guard let encoder else { return }
        var owed = encoder.lookahead
        repeat {
            let padding = packetSamples.count - packetFill
            (packetSamples.baseAddress! + packetFill).update(repeating: 0, count: padding)
            owed -= padding
            encodePacket(last: owed <= 0)
        } while owed > 0
    }
}
