import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition

/// `afe stream`: a thin shell over ``RecognitionSession`` that streams files through the front end to a
/// recognizer as an app would push them, printing what the recognizer hears.
enum StreamCommand {
    static func run(_ options: StreamOptions) async throws {
        let input = try InputAudio(mic: options.mic, channel: options.frontEnd.channel, reference: options.reference)
        var configuration = try options.configuration(environment: ProcessInfo.processInfo.environment)
        input.configure(&configuration.frontEnd)
        let session = try RecognitionSession(configuration: configuration)
        let terminal = isatty(STDOUT_FILENO) == 1
        let printer = Task { await printEvents(session.events, partials: options.partials, inPlace: options.partials == nil && terminal) }
        let target = "\(options.wire), \(options.format.rawValue) at \(configuration.sampleRate) Hz"
        print("afe stream: \(options.mic) (\(String(format: "%.1f", input.micFile.durationSeconds)) s at \(input.micFile.sampleRate) Hz) → \(options.url) (\(target))")
        do {
            try await session.start()
        } catch {
            _ = await printer.value
            throw error
        }
        if options.reference != nil { session.setPlaying(true) }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let pusher = Thread {
                input.feed(realtime: options.realtime, pushReference: session.pushReference(samples:),
                           pushMic: session.pushMic(samples:))
                done.resume()
            }
            pusher.start()
        }
        let summary: RecognitionSummary
        do {
            summary = try await session.finish()
        } catch {
            _ = await printer.value
            throw error
        }
        _ = await printer.value
        print(StreamReport(summary: summary, audioSeconds: input.micFile.durationSeconds, expected: options.expected,
                           hasReference: options.reference != nil, retried: !options.realtime).text())
    }

    /// Prints results as they arrive: final results as lines; partials in place on a terminal, as lines with
    /// `partials == true`, not at all with false.
    static func printEvents(_ events: AsyncStream<RecognitionEvent>, partials: Bool?, inPlace: Bool) async {
        var pending = false
        func clear() { if pending { print("\r\u{1B}[K", terminator: ""); pending = false } }
        for await event in events {
            switch event {
            case .started(let task):
                print("  started (task \(task.taskId))")
            case .partialResult(let result) where inPlace:
                clear()
                print("  … \(result.text)", terminator: "")
                fflush(nil) // all streams: stdout is not concurrency-safe to name
                pending = true
            case .partialResult(let result) where partials == true:
                print("  partial \(result.sentenceId): \(result.text)")
            case .finalResult(let result):
                clear()
                let end = result.endMilliseconds.map { String(format: "%.2f", Double($0) / 1000) } ?? "?"
                print(String(format: "  [%.2f–%@ s] ", Double(result.beginMilliseconds) / 1000, end) + result.text)
            case .translation(let translation):
                print("  translation (\(translation.language ?? "?")): \(translation.text)")
            case .reconnecting(let reconnection):
                print("  reconnecting (attempt \(reconnection.attempt)): \(reconnection.cause.message)")
            case .micSilent(let milliseconds):
                print("  no mic audio for \(milliseconds) ms")
            default:
                break
            }
        }
        clear()
    }
}
