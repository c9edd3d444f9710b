import Foundation
import OggMux
import SpeechStreaming
import SpeechSynthesis

/// `afe speak`: text → the speech-synthesis client → an audio file, then a summary.
enum SpeakCommand {
    static func run(_ options: SpeakOptions) throws {
        let text = try options.readText()
        let environment = ProcessInfo.processInfo.environment
        guard let key = environment["DASHSCOPE_API_KEY"].flatMap({ $0.isEmpty ? nil : $0 })
                ?? (options.isLoopback ? "local" : nil) else {
            throw RunFailure(message: "set DASHSCOPE_API_KEY in the environment (needed for \(Redactor().redact(url: options.url)))")
        }
        let configuration = SynthesisConfiguration(url: options.url, apiKey: key, parameters: options.parameters)
        let session: SpeechSynthesisSession
        do {
            session = try SpeechSynthesisSession(configuration: configuration)
        } catch let error as SpeechStreamingError {
            throw RunFailure(message: error.message)
        }
        defer { session.close() }
        let writer = try SpeechFile(path: options.output)
        let listener = SpeakListener(writer: writer)
        session.delegate = listener
        let began = Date()
        do {
            try session.requestStart()
        } catch let error as SpeechStreamingError {
            writer.discard()
            throw RunFailure(message: error.message)
        }
        do {
            let pieces = options.chunkCharacters.map { size in
                stride(from: 0, to: text.count, by: size).map { start -> String in
                    let from = text.index(text.startIndex, offsetBy: start)
                    return String(text[from..<(text.index(from, offsetBy: size, limitedBy: text.endIndex) ?? text.endIndex)])
                }
            } ?? [text]
            for piece in pieces { try session.send(text: piece) }
            session.requestFinish()
        } catch let error as SpeechStreamingError where error.code == .textLimit {
            session.cancel() // the text cannot be spoken whole: nothing of it is kept
            writer.discard()
            throw RunFailure(message: "the text is too long for one task: \(error.message)")
        } catch {
            // The task already ended (a refused connection can fail it before the text goes out): its own
            // error event, which always follows a start, says why.
        }
        let end = listener.waitForEnd()
        guard case .completed(let completed) = end else {
            writer.discard()
            if case .error(let error) = end { throw RunFailure(message: describe(error)) }
            throw RunFailure(message: "no answer from the service")
        }
        if let failure = writer.failure {
            writer.discard()
            throw RunFailure(message: failure)
        }
        try writer.finish(format: options.parameters.format)
        let statistics = session.statistics
        var line = "afe speak: \(listener.sentences) sentences, \(completed.characters.map(String.init) ?? "?") characters, "
            + "\(statistics.audioBytes) bytes of \(options.parameters.format.rawValue) in \(statistics.audioFrames) frames"
        if options.parameters.format == .pcm || options.parameters.format == .wav {
            let seconds = Double(writer.audioBytes) / 2 / Double(options.parameters.sampleRate)
            line += String(format: " (%.2f s)", seconds)
        }
        line += String(format: " in %.2f s; connect %@ ms, first audio %@ ms after the first text",
                       Date().timeIntervalSince(began), milliseconds(statistics.connectMilliseconds),
                       milliseconds(statistics.firstAudioMilliseconds))
        if options.parameters.wordTimestampEnabled == true { line += "; \(listener.words + completed.words.count) word timestamps" }
        print(line + " -> \(options.output)")
    }

    static func milliseconds(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }

    /// One line for a failed task: what happened, the server's code.
    static func describe(_ error: SpeechStreamingError) -> String {
        var text = error.code == .taskFailed ? "the service failed the task: \(error.message)" : error.message
        if let code = error.serverCode, !code.isEmpty { text += " (\(code))" }
        return text
    }
}

/// Collects the events of `afe speak`'s one task: audio into the file, counts, the end.
final class SpeakListener: SpeechSynthesisDelegate, @unchecked Sendable { // counters under `condition`
    private let condition = NSCondition()
    private let writer: SpeechFile
    private var end: SynthesisEvent?
    private(set) var sentences = 0
    private(set) var words = 0

    init(writer: SpeechFile) { self.writer = writer }

    func synthesisSession(_ session: SpeechSynthesisSession, didReceive event: SynthesisEvent) {
        condition.lock()
        defer { condition.unlock() }
        switch event {
        case .audio(let audio): writer.append(audio.bytes)
        case .sentenceBegin(let s), .sentenceSynthesis(let s): words += s.words.count
        case .sentenceEnd(let s):
            sentences += 1
            words += s.words.count
        case .completed, .error:
            end = event
            condition.broadcast()
        case .started: break
        }
    }

    /// Blocks until the task's last event (the session's own timeouts bound the wait).
    func waitForEnd() -> SynthesisEvent {
        condition.lock()
        defer { condition.unlock() }
        while end == nil { condition.wait() }
        return end!
    }
}

/// The output file: written to `path.partial` as the audio arrives, renamed at the end (a failed run leaves none).
final class SpeechFile: @unchecked Sendable { // used under SpeakListener's lock, then by the main thread
    let path: String
    private let partial: String
    private let handle: FileHandle
    private(set) var audioBytes = 0
    private(set) var failure: String?
    private var header: [UInt8] = []
    /// The last frame and where it starts (opus: the last Ogg page, marked end-of-stream at the end).
    private var lastFrame: [UInt8] = []
    private var lastOffset = 0

    init(path: String) throws {
        self.path = path
        partial = path + ".partial"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
              let handle = FileHandle(forWritingAtPath: partial) else {
            throw RunFailure(message: "--output \(path) cannot be written")
        }
        self.handle = handle
    }

    func append(_ bytes: [UInt8]) {
        guard failure == nil else { return }
        if header.count < 44 { header += bytes.prefix(44 - header.count) }
        do { try handle.write(contentsOf: bytes) } catch { failure = "--output \(path): \(error.localizedDescription)" }
        lastFrame = bytes
        lastOffset = audioBytes
        audioBytes += bytes.count
    }

    /// Closes the file (a WAV gets its real RIFF and data sizes, an Ogg Opus stream an end-of-stream flag on its
    /// last page) and renames it into place.
    func finish(format: SynthesisFormat) throws {
        if format == .wav, header.count == 44, header.starts(with: Array("RIFF".utf8)),
           Array(header[36..<40]) == Array("data".utf8) {
            audioBytes -= 44
            try handle.seek(toOffset: 4)
            try handle.write(contentsOf: le32(UInt32(clamping: audioBytes + 36)))
            try handle.seek(toOffset: 40)
            try handle.write(contentsOf: le32(UInt32(clamping: audioBytes)))
        }
        if format == .opus, lastFrame.count > 5, lastFrame[5] & 0x04 == 0, let ending = oggPageEndingStream(lastFrame) {
            try handle.seek(toOffset: UInt64(lastOffset))
            try handle.write(contentsOf: ending)
        }
        try handle.close()
        _ = try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: partial, toPath: path)
    }

    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(atPath: partial)
    }

    private func le32(_ value: UInt32) -> Data { withUnsafeBytes(of: value.littleEndian) { Data($0) } }
}
