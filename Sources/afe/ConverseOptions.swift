import Foundation

/// The command line of `afe converse`, parsed. Each bad option becomes one message naming the problem.
struct ConverseOptions {
    var url = ""
    var answer = "Tomorrow will be mostly sunny in the morning, with clouds building up after noon and a chance of "
        + "light rain in the evening. The high will be around nineteen degrees and the low near eleven. "
        + "The wind will come from the south west at ten to fifteen kilometres an hour, stronger near the coast."
    var user = ""
    var userFrom: Double?
    var userTo: Double?
    var userText: String?
    var userAt = 4.0
    var userGainDecibels = 0.0
    var voice = "espeak-en-us"
    var format = "pcm"
    var echoGainDecibels = -3.0
    var echoDelayMilliseconds = 40
    var rt60 = 0.25
    var impulseResponse: String?
    var noiseDecibels = -60.0
    var seed: UInt64 = 1
    var tailSeconds = 2.0
    var playback = true
    var bargeIn = true
    var realtime = false
    var report: String?
    var micOutput: String?
    var quiet = false

    /// The device's rate: playback, mic and recognition (PocketSphinx's model is 16 kHz).
    let rate = 16000

    static let usage = """
    usage: afe converse --url URL --user FILE [--user-from S] [--user-to S] [--user-text TEXT] [--user-at S]
                        [--user-gain-db DB] [--answer TEXT] [--voice NAME] [--format pcm|wav|mp3|opus]
                        [--rt60 S | --impulse-response FILE] [--echo-delay-ms MS] [--echo-gain-db DB]
                        [--noise-dbfs DB] [--seed N] [--tail S] [--no-playback] [--no-barge-in] [--realtime]
                        [--report FILE.json] [--mic-output FILE.wav] [--quiet]

    The whole loop of a voice device, offline: the device speaks --answer (speech synthesis through the NUI TTS SDK,
    NeoNuiStreamInputTts, streamed from the service at --url and played by its StreamInputTtsPlayback, which pushes
    every sample it hands to the device as the echo reference) into a simulated room (the played audio convolved
    with an impulse response, delayed by --echo-delay-ms and scaled by --echo-gain-db), while a user talks over it
    (--user FILE, the part --user-from..--user-to in seconds, starting --user-at seconds after the answer began) above
    a white noise floor (--noise-dbfs). The mic goes through the NUI SDK (NeoNui: echo cancellation, VAD) to the
    recognizer at the same URL; when the front end finds the user speaking during playback, barge-in stops the
    answer; the recognizer prints what the user said, then the timings: answer start, user onset, barge-in decision,
    playback stopped, the played position at the stop, first partial and final result.
    The simulated room is a deterministic synthetic impulse response (the test vectors' model: direct path, five
    early reflections, a Gaussian tail decaying 60 dB in --rt60 s, seeded by --seed) unless --impulse-response gives
    one (a WAV, e.g. from Scripts/scenarios).
    Clock: offline by default: one 10 ms device buffer after another, as fast as the front end takes them (each
    buffer's mic is processed before the next is played), so every time on the audio clock is the same at every run
    except those of the results, which arrive from the service in wall-clock time (with --realtime the clock is the
    wall clock, one buffer per 10 ms).
    --no-playback: the device plays nothing (the same user in the same room, the recognizer's baseline);
    --no-barge-in: the answer plays on over the user. --user-text prints the word error rate of what was heard.
    --report writes every figure as JSON; --mic-output the simulated mic. No key is needed for a server at 127.0.0.1
    (Scripts/reference-server/server.py --recognizer pocketsphinx; Scripts/converse.sh starts one).
    """

    typealias Failure = ArgumentReader.Failure

    init(_ arguments: [String]) throws {
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "--help", "-h": throw Failure(message: Self.usage)
            case "--url": url = try reader.value(argument)
            case "--answer": answer = try reader.value(argument)
            case "--user": user = try reader.value(argument)
            case "--user-from": userFrom = try reader.number(argument, 0...3600)
            case "--user-to": userTo = try reader.number(argument, 0...3600)
            case "--user-text": userText = try reader.value(argument)
            case "--user-at": userAt = try reader.number(argument, 0...600)
            case "--user-gain-db": userGainDecibels = try reader.number(argument, -60...30)
            case "--voice": voice = try reader.value(argument)
            case "--format": format = try reader.choice(argument, ["pcm", "wav", "mp3", "opus"])
            case "--echo-gain-db": echoGainDecibels = try reader.number(argument, -60...20)
            case "--echo-delay-ms": echoDelayMilliseconds = Int(try reader.number(argument, 0...1000))
            case "--rt60": rt60 = try reader.number(argument, 0.05...1.5)
            case "--impulse-response": impulseResponse = try reader.value(argument)
            case "--noise-dbfs": noiseDecibels = try reader.number(argument, -120...(-10))
            case "--seed":
                let text = try reader.value(argument)
                guard let value = UInt64(text) else { throw Failure(message: "--seed takes a whole number ≥ 0, not '\(text)'") }
                seed = value
            case "--tail": tailSeconds = try reader.number(argument, 0.5...30)
            case "--no-playback": playback = false
            case "--no-barge-in": bargeIn = false
            case "--realtime": realtime = true
            case "--report": report = try reader.value(argument)
            case "--mic-output": micOutput = try reader.value(argument)
            case "--quiet": quiet = true
            case "--api-key", "--apikey":
                throw Failure(message: "\(argument) is not accepted: set DASHSCOPE_API_KEY in the environment")
            default: throw Failure(message: "unknown option '\(argument)' (see afe converse --help)")
            }
        }
        guard !url.isEmpty else { throw Failure(message: "--url URL is required (ws:// or wss://, the DashScope path /api-ws/v1/inference)") }
        guard URLComponents(string: url)?.path.hasPrefix("/api-ws/") == true else {
            throw Failure(message: "--url must be a DashScope URL (path /api-ws/v1/inference): speech synthesis and recognition both go there")
        }
        guard !user.isEmpty else { throw Failure(message: "--user FILE (the user's speech) is required") }
        guard !answer.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw Failure(message: "--answer holds no text") }
        if let userFrom, let userTo, userTo <= userFrom {
            throw Failure(message: "--user-to (\(userTo) s) must be after --user-from (\(userFrom) s)")
        }
        if impulseResponse != nil && arguments.contains("--rt60") {
            throw Failure(message: "give the room once: --rt60 (synthetic) or --impulse-response FILE, not both")
        }
    }

    /// Whether the URL points at this machine (a local reference server needs no key).
    var isLoopback: Bool { isLoopbackURL(url) }
}
