import AudioFrontEnd
import Foundation

extension TtsSoak {
    /// Many answers, each interrupted: a user talks 2.5 s into every answer (2.1 s of the near-end vector, over the
    /// echo), barge-in (on, the front end as its source) stops the answer and drops the task's connection, and the
    /// next answer connects anew. Every answer ends (interrupted, or drained when no decision came); at least 90 %
    /// are interrupted; resident memory, heap in use, threads and open files after answer 10 against the end.
    /// `tasks` in the figures counts the answers that were not interrupted: those the server finished.
    func runBargeIns() throws -> [String: Any] {
        let vector = try AudioFile(contentsOf: "TestVectors/nearend_16k.wav")
        let user = vector.samples[Int(2.9 * 16000)..<Int(5.0 * 16000)].map { Int16(clamping: Int(($0 * 32767).rounded())) }
        let (frontEnd, sink, playback, tts) = try makeLoop(user: user)
        try check("enableBargeIn", tts.enableBargeIn(true))
        var failures: [String] = []
        var figures = RunFigures()
        let started = ContinuousClock.now
        let text = sentences[0] + " " + sentences[1] + " " + sentences[2]
        for task in 1...options.dialogs {
            let before = events.counts
            try start(tts)
            sink.talk(afterMilliseconds: 2500)
            try send(tts, text)
            guard events.wait(rearmed: task, timeout: 60) else {
                throw SoakFailure("answer \(task): neither interrupted nor played out within 60 s (\(events.counts))")
            }
            let after = events.counts
            if after.interrupted == before.interrupted { // no decision: the answer played to its end
                _ = tts.stopStreamInputTts() // NO_DIALOG once synthesis completed by itself
            } else if after.interruptions != after.interrupted {
                failures.append("answer \(task): \(after.interrupted) interrupted events but \(after.interruptions) interruption callbacks")
            }
            if let failure = events.failure { throw SoakFailure("answer \(task): \(failure)") }
            figures.sample(task - 1, of: options.dialogs)
        }
        try check("enableBargeIn(false)", tts.enableBargeIn(false))
        tts.setPlayback(nil)
        failures += try close(frontEnd, sink, playback)
        failures += figures.failures(rssLimit: options.rssLimitBytes, heapLimit: options.heapLimitBytes, what: "answer")
        let counts = events.counts
        if counts.interrupted * 10 < options.dialogs * 9 {
            failures.append("\(counts.interrupted) of \(options.dialogs) answers interrupted (at least 90 % expected)")
        }
        return figures.fields.merging(["tasks": options.dialogs - counts.interrupted, "answers": options.dialogs,
                                       "interrupted": counts.interrupted, "sink_samples": sink.written,
                                       "wall_seconds": ((ContinuousClock.now - started).inSeconds * 100).rounded() / 100,
                                       "failures": failures]) { $1 }
    }
}
