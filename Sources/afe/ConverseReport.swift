import AudioFrontEnd
import Foundation
import NuiTTS
import VoiceRecognition

/// What `afe converse` prints and writes (--report): the timings on the audio clock, what was heard, the
/// synthesis speed, and the played position checked against the samples handed to the device.
struct ConverseReport {
    let options: ConverseOptions
    let loop: ConverseLoop.Result
    let heard: String
    let finals: [ConverseFinal]
    /// The finals that overlap the user's speech (from their part's start to 0.5 s after its end): what the
    /// recognizer made of the user; the others are what it made of the device's own voice.
    let userFinals: [ConverseFinal]
    let speechStarts: [Int]
    /// The first partial that arrived after the user's onset, and the user's last final.
    let firstPartialSample: Int?
    let finalSample: Int?
    /// Wall-clock ms from pushing the user's onset to the first partial, and from pushing their last sample to
    /// their last final: the recognizer's latency, meaningful offline too (the audio clock runs ahead of it).
    let firstPartialLatency: Double?
    let finalLatency: Double?
    let stoppedEventMilliseconds: Int64?
    /// The front end's first barge-in decision and what the SDK reported it interrupted.
    let decision: BargeInDecision?
    let interruption: StreamInputTtsInterruption?
    /// Samples of the answer found, sample for sample, in what was handed to the device (pcm and wav only): the
    /// truth the played position is checked against. A range when the answer is silent where playback stopped.
    let handedOut: ClosedRange<Int>?
    let summary: RecognitionSummary?
    let synthesis: [String: Double]

    init(options: ConverseOptions, user: ConverseInputs.User, loop: ConverseLoop.Result, listener: ConverseListener,
         summary: RecognitionSummary?) {
        self.options = options
        self.loop = loop
        self.summary = summary
        let partials: [(sample: Int, at: ContinuousClock.Instant)]
        (finals, speechStarts, partials, decision, interruption) = listener.lock.withLock {
            (listener.finals, listener.speechStartSamples, listener.partialSamples, listener.decisions.first, listener.interruption)
        }
        let from = loop.userStartSample * 1000 / options.rate
        let to = (loop.userStartSample + user.samples.count) * 1000 / options.rate + 500
        userFinals = finals.filter { ($0.end ?? Int.max) > from && ($0.begin ?? 0) < to }
        heard = userFinals.map(\.text).joined(separator: " ")
        let firstPartial = partials.first { $0.sample >= loop.userOnsetSample }
        firstPartialSample = firstPartial?.sample
        finalSample = userFinals.last?.arrival
        func wallMilliseconds(_ from: ContinuousClock.Instant?, _ to: ContinuousClock.Instant?) -> Double? {
            guard let from, let to else { return nil }
            return ConverseLoop.seconds(to - from) * 1000
        }
        firstPartialLatency = wallMilliseconds(loop.onsetPushedAt, firstPartial?.at)
        finalLatency = wallMilliseconds(loop.userEndPushedAt, userFinals.last?.arrivedAt)
        stoppedEventMilliseconds = listener.playback(.TTS_PLAYBACK_STOPPED)?.positionMilliseconds
        let delivered = listener.lock.withLock { listener.delivered }
        handedOut = Self.handedOut(device: loop.device, delivered: delivered, format: options.format)
        var synthesis: [String: Double] = [:]
        let wall = listener.wall.withLock { $0 }
        func ms(_ from: ContinuousClock.Instant?, _ to: ContinuousClock.Instant?) -> Double? {
            guard let from, let to else { return nil }
            return ConverseLoop.seconds(to - from) * 1000
        }
        synthesis["connect_ms"] = ms(wall.started, wall.synthesisStarted)
        synthesis["first_audio_after_first_text_ms"] = ms(wall.firstText, wall.firstAudio)
        if options.format == "pcm" || options.format == "wav", let total = ms(wall.firstText, wall.complete) {
            let seconds = Double(max(0, delivered.count - (options.format == "wav" ? 44 : 0))) / 2 / Double(options.rate)
            if seconds > 0 {
                synthesis["audio_s"] = seconds
                synthesis["rtf"] = total / 1000 / seconds
            }
        }
        self.synthesis = synthesis
    }

    private var rate: Double { Double(options.rate) }
    private func ms(_ sample: Int?) -> Double? { sample.map { Double($0) * 1000 / rate } }

    /// The timings, ms on the audio clock.
    var timings: [String: Double] {
        var values: [String: Double] = [:]
        values["answer_start_ms"] = ms(loop.answerStartSample)
        values["user_start_ms"] = ms(loop.userStartSample)
        values["user_onset_ms"] = ms(loop.userOnsetSample)
        values["barge_in_decision_ms"] = decision.map { Double($0.milliseconds) }
        values["barge_in_speech_start_ms"] = decision.map { Double($0.speechStartMilliseconds) }
        values["decision_reached_sdk_ms"] = ms(loop.decisionSeenSample)
        values["playback_stopped_ms"] = ms(loop.stoppedSample)
        values["answer_drained_ms"] = ms(loop.drainedSample)
        values["first_partial_ms"] = ms(firstPartialSample)
        values["final_ms"] = ms(finalSample)
        values["end_of_audio_ms"] = ms(loop.endSample)
        values["first_partial_after_onset_pushed_ms"] = firstPartialLatency
        values["final_after_user_end_pushed_ms"] = finalLatency
        let onset = Double(loop.userOnsetSample) * 1000 / rate
        if let decision { values["decision_after_onset_ms"] = Double(decision.milliseconds) - onset }
        if let stopped = ms(loop.stoppedSample) {
            values["stopped_after_onset_ms"] = stopped - onset
            if let decision { values["stopped_after_decision_ms"] = stopped - Double(decision.milliseconds) }
        }
        values["played_position_ms"] = loop.stoppedPosition.map { Double($0) * 1000 / rate }
        values["played_position_stopped_event_ms"] = stoppedEventMilliseconds.map(Double.init)
        values["played_position_interrupted_ms"] = interruption.map { Double($0.positionSamples) * 1000 / Double(max(1, $0.sampleRate)) }
        if let handedOut {
            values["handed_out_min_ms"] = Double(handedOut.lowerBound) * 1000 / rate
            values["handed_out_max_ms"] = Double(handedOut.upperBound) * 1000 / rate
        }
        if let error = positionError { values["played_position_error_ms"] = error }
        return values
    }

    /// How far the SDK's played position (the interruption's) is from the samples handed to the device, ms.
    var positionError: Double? {
        guard let handedOut, let interruption else { return nil }
        let samples = Double(interruption.positionSamples) * rate / Double(max(1, interruption.sampleRate))
        let low = Double(handedOut.lowerBound), high = Double(handedOut.upperBound)
        return (samples < low ? low - samples : samples > high ? samples - high : 0) * 1000 / rate
    }

    var wordErrorRate: Double? {
        options.userText.map { WordErrorRate.of(reference: WordErrorRate.words($0), hypothesis: WordErrorRate.words(heard)) }
    }

    func text() -> String {
        func at(_ key: String) -> String { timings[key].map { String(format: "%.0f ms", $0) } ?? "–" }
        var lines = ["timings (audio clock, \(options.realtime ? "real time" : "offline"); 0 = the first device buffer):"]
        lines.append("  answer start \(at("answer_start_ms")), user onset \(at("user_onset_ms")) (their part from \(at("user_start_ms")))")
        if options.playback && options.bargeIn {
            lines.append("  barge-in decision \(at("barge_in_decision_ms")) (\(at("decision_after_onset_ms")) after the onset), playback stopped "
                         + "\(at("playback_stopped_ms")) (\(at("stopped_after_decision_ms")) after the decision, \(at("stopped_after_onset_ms")) after the onset)")
            var position = "  played position at the stop: \(at("played_position_interrupted_ms")) (the interruption callback; "
                + "TTS_PLAYBACK_STOPPED \(at("played_position_stopped_event_ms")))"
            if let handedOut {
                position += String(format: "; handed to the device %.0f–%.0f ms of the answer, error %@", Double(handedOut.lowerBound) * 1000 / rate,
                                   Double(handedOut.upperBound) * 1000 / rate, at("played_position_error_ms"))
            }
            lines.append(position)
        } else if options.playback {
            lines.append("  answer played out \(at("answer_drained_ms")) (--no-barge-in)")
        }
        lines.append("  first partial \(at("first_partial_ms")), final \(at("final_ms")), end of audio \(at("end_of_audio_ms"))"
                     + (options.realtime ? "" : " (results arrive in wall-clock time, the offline clock runs ahead)"))
        lines.append("  recognizer latency (wall clock): first partial \(at("first_partial_after_onset_pushed_ms")) after the onset was pushed, "
                     + "final \(at("final_after_user_end_pushed_ms")) after the user's last sample")
        lines.append("  speech starts (on-device VAD): " + (speechStarts.isEmpty ? "none" : speechStarts.map { String(format: "%.0f ms", Double($0) * 1000 / rate) }.joined(separator: ", ")))
        lines.append("heard from the user: \"\(heard)\"")
        let others = finals.filter { final in !userFinals.contains { $0.arrival == final.arrival && $0.text == final.text } }
        if !others.isEmpty {
            lines.append("heard outside the user's speech (the device's own voice before the canceller converged): \""
                         + others.map(\.text).joined(separator: " ") + "\"")
        }
        if let wordErrorRate { lines.append(String(format: "word error rate against the user's text: %.2f", wordErrorRate)) }
        if let summary {
            lines.append("echo: delay found " + (summary.delayMilliseconds.map { String(format: "%.0f ms", $0) } ?? "none")
                         + ", removed " + (summary.echoReductionDecibels.map { String(format: "%.1f dB", $0) } ?? "–") + " (median ERLE)")
        }
        if options.playback {
            func figure(_ key: String, _ format: String) -> String { synthesis[key].map { String(format: format, $0) } ?? "–" }
            lines.append("synthesis: connect \(figure("connect_ms", "%.1f ms")), first audio \(figure("first_audio_after_first_text_ms", "%.1f ms")) "
                         + "after the first text, real-time factor \(figure("rtf", "%.3f"))")
        }
        lines.append(String(format: "run: %.2f s of audio in %.2f s (%.1fx real time), waited %.2f s for synthesized audio, %d lockstep timeouts",
                            Double(loop.endSample) / rate, loop.wallSeconds, Double(loop.endSample) / rate / max(loop.wallSeconds, 1e-9),
                            loop.waitedForAudioSeconds, loop.lockstepTimeouts))
        return lines.joined(separator: "\n")
    }

    func write(json path: String) throws {
        var object: [String: Any] = ["timings": timings, "heard": heard, "synthesis": synthesis,
                                     "finals": finals.map { ["text": $0.text, "begin_ms": $0.begin ?? -1, "end_ms": $0.end ?? -1,
                                                              "arrival_ms": Double($0.arrival) * 1000 / rate] },
                                     "user_finals": userFinals.count,
                                     "speech_starts_ms": speechStarts.map { Double($0) * 1000 / rate },
                                     "playback": options.playback, "barge_in": options.bargeIn, "realtime": options.realtime,
                                     "lockstep_timeouts": loop.lockstepTimeouts, "wall_s": loop.wallSeconds,
                                     "waited_for_audio_s": loop.waitedForAudioSeconds]
        if let text = options.userText { object["user_text"] = text }
        if let wordErrorRate { object["wer"] = wordErrorRate }
        if let summary {
            object["echo_delay_ms"] = summary.delayMilliseconds
            object["erle_db"] = summary.echoReductionDecibels
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        guard FileManager.default.createFile(atPath: path, contents: data) else {
            throw RunFailure(message: "--report \(path) cannot be written")
        }
    }

    /// The answer's samples handed to the device: where the delivered pcm appears in the device stream, sample for
    /// sample, and how far. nil for mp3/opus (decoded, not comparable) or when the answer was not found.
    static func handedOut(device: [Int16], delivered: [UInt8], format: String) -> ClosedRange<Int>? {
        guard format == "pcm" || format == "wav" else { return nil }
        let bytes = format == "wav" ? Array(delivered.dropFirst(44)) : delivered
        let answer = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        guard let firstAnswer = answer.firstIndex(where: { $0 != 0 }),
              let firstDevice = device.firstIndex(where: { $0 != 0 }), firstDevice >= firstAnswer else { return nil }
        let offset = firstDevice - firstAnswer
        var matched = 0, lastSound = 0
        while matched < answer.count, offset + matched < device.count, device[offset + matched] == answer[matched] {
            if answer[matched] != 0 { lastSound = matched + 1 }
            matched += 1
        }
        return lastSound...matched
    }
}
