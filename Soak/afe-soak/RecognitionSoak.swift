import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition

/// One long dialog through `RecognitionCore` (its callback, on the core's event thread) or `RecognitionSession`
/// (its async sequence), against a server, with every check of the soak.
enum RecognitionSoak {
    static func run(_ options: SoakOptions, async: Bool) throws -> [String: Any] {
        let audio = try SoakAudio(mic: options.mic, reference: options.reference, seconds: options.seconds)
        let tally = Tally(sampleRate: 16000)
        var configuration = RecognitionConfiguration(service: try options.service(), audioFormat: options.audioFormat,
                                                     queueFullPolicy: .wait)
        configuration.frontEnd.mic = .init(sampleRate: audio.sampleRate)
        configuration.frontEnd.reference = .init(sampleRate: audio.sampleRate)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        let handle: @Sendable (RecognitionEvent) -> Void = { event in
            switch event {
            case .audio(let chunk): tally.audio(samples: chunk.samples.count)
            case .partialResult: tally.partial()
            case .finalResult(let result): tally.final(sentence: result.sentenceId, beginMilliseconds: result.beginMilliseconds)
            case .completed(let summary): outcome.set(.success(summary)); ended.signal()
            case .error(let error): outcome.set(.failure(SoakFailure("the dialog failed: \(error)"))); ended.signal()
            default: break
            }
        }
        let started = ContinuousClock.now
        var push: Pusher
        if async {
            let session = try RecognitionSession(configuration: configuration)
            let events = session.events // made on first access: before start()
            Task.detached { for await event in events { handle(event) } }
            try blocking { try await session.start() }
            push = Pusher(mic: { session.pushMic(samples: $0) }, reference: { session.pushReference(samples: $0) })
            push.run(audio, realtime: options.realtime, processed: tally.processedSamples)
            _ = try? blocking { try await session.finish() }
        } else {
            let core = try RecognitionCore(configuration: configuration)
            core.eventHandler = handle
            try core.start()
            push = Pusher(mic: { core.pushMic(samples: $0) }, reference: { core.pushReference(samples: $0) })
            push.run(audio, realtime: options.realtime, processed: tally.processedSamples)
            try core.finish()
        }
        guard ended.wait(timeout: .now() + 120) == .success else { throw SoakFailure("no completed event within 120 s of the end") }
        let summary = try outcome.get()
        let elapsed = ContinuousClock.now - started
        var (fields, failures) = tally.report(limitBytes: options.rssLimitBytes, heapLimitBytes: options.heapLimitBytes, seconds: audio.seconds)
        failures += Accounting.check(summary: summary, samples: audio.mic.count, micRate: audio.sampleRate, format: options.audioFormat,
                                     finals: tally.finalCount)
        fields.merge(Accounting.fields(summary: summary, elapsed: elapsed, seconds: audio.seconds)) { $1 }
        fields["failures"] = failures
        return fields
    }
}

/// Exact accounting: every pushed sample processed and sent, nothing dropped, every final in the summary.
enum Accounting {
    static func check(summary: RecognitionSummary, samples: Int, micRate: Int, format: AudioFormat, finals: Int) -> [String] {
        var failures: [String] = []
        if summary.ending != .finished { failures.append("the dialog ended \(summary.ending), not finished") }
        if !summary.drops.isEmpty { failures.append("drops: \(summary.drops)") }
        if summary.sentences.count != finals {
            failures.append("summary has \(summary.sentences.count) sentences, \(finals) final results were delivered")
        }
        if let frontEnd = summary.frontEnd {
            if frontEnd.micSamplesPushed != samples { failures.append("front end took \(frontEnd.micSamplesPushed) of \(samples) samples") }
            let expected = samples * 16000 / micRate
            if frontEnd.outputSamples != expected {
                failures.append("front end put out \(frontEnd.outputSamples) samples, \(expected) expected")
            }
        } else if let dialog = summary.dialogAudio {
            // A dialog on a RecognitionEngine (NeoNui): the front end runs on, so when the mic stops at the finish
            // the stages' hold-back (20 ms) never comes out; up to 30 ms may be missing, never more, never extra.
            if dialog.micSamples != samples { failures.append("the dialog took \(dialog.micSamples) of \(samples) mic samples") }
            let expected = samples * 16000 / micRate
            if dialog.outputSamples > expected || dialog.outputSamples < expected - 480 {
                failures.append("the dialog put out \(dialog.outputSamples) samples, \(expected) expected (at most 480 fewer)")
            }
        } else {
            failures.append("no front-end summary")
        }
        let output = summary.frontEnd?.outputSamples ?? summary.dialogAudio?.outputSamples
        if format == .pcm, let output, summary.statistics.audioBytesSent != output * 2 {
            failures.append("sent \(summary.statistics.audioBytesSent) bytes for \(output) samples")
        }
        return failures
    }

    static func fields(summary: RecognitionSummary, elapsed: Duration, seconds: Double) -> [String: Any] {
        let wall = elapsed.inSeconds
        return ["task_id": summary.taskId ?? "", "sentences": summary.sentences.count,
                "bytes_sent": summary.statistics.audioBytesSent, "frames_sent": summary.statistics.audioFramesSent,
                "output_samples": summary.frontEnd?.outputSamples ?? summary.dialogAudio?.outputSamples ?? 0,
                "audio_seconds": seconds,
                "wall_seconds": (wall * 100).rounded() / 100]
    }
}
