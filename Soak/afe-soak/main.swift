import Foundation

// afe-soak: long runs of the shipped code through its public surfaces, against a server on 127.0.0.1.
//
//   afe-soak core|session|nui --url URL [--protocol dashscope|nls] [--format pcm|opus] [--seconds 600] [--realtime]
//   afe-soak dialogs --url URL [--protocol …] [--format …] [--dialogs 200] [--dialog-seconds 2]
//   afe-soak path --url URL [--protocol …] [--format …]
//   afe-soak tts --url URL [--format pcm|wav|mp3|opus] [--dialogs 200] [--realtime]
//   afe-soak tts-long --url URL [--seconds 600] [--realtime]
//   afe-soak tts-bargein --url URL [--dialogs 100] [--realtime]
//
// core: RecognitionCore with its callback; session: RecognitionSession's async sequence; nui: NeoNui (one
// dialog); dialogs: many dialogs on one NeoNui instance; path: no allocation and no lock from push to socket after
// warm-up (PushToSocketProbe, with the allocation and lock counters), a dialog on an engine and a core; tts: many
// answers on one NeoNuiStreamInputTts playing into a front end's reference; tts-long: one long PCM answer;
// tts-bargein: many answers, each interrupted by a user (barge-in). Prints one JSON line of figures with a "failures" list;
// exit 0 when it is empty, 1 otherwise, 2 on bad usage. See Soak/README.md.
let arguments = CommandLine.arguments
guard arguments.count >= 2, ["core", "session", "nui", "dialogs", "path", "tts", "tts-long", "tts-bargein"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: afe-soak core|session|nui|dialogs|path|tts|tts-long|tts-bargein --url URL [options] (see Soak/README.md)\n".utf8))
    exit(2)
}
do {
    let options = try SoakOptions(arguments.dropFirst(2))
    let synthesis = arguments[1].hasPrefix("tts")
    guard synthesis || ["pcm", "opus"].contains(options.format) else { throw SoakFailure("--format is pcm or opus") }
    guard !["tts-long", "tts-bargein"].contains(arguments[1]) || options.format == "pcm" else {
        throw SoakFailure("\(arguments[1]) plays pcm")
    }
    var figures: [String: Any]
    switch arguments[1] {
    case "core": figures = try RecognitionSoak.run(options, async: false)
    case "session": figures = try RecognitionSoak.run(options, async: true)
    case "nui": figures = try NuiSoak(options).runLong()
    case "path": figures = try PathCheck.run(options)
    case "tts": figures = try TtsSoak(options).runTasks()
    case "tts-long": figures = try TtsSoak(options).runLong()
    case "tts-bargein": figures = try TtsSoak(options).runBargeIns()
    default: figures = try NuiSoak(options).runDialogs()
    }
    figures["surface"] = arguments[1]
    figures["protocol"] = options.wire
    figures["format"] = options.format
    print(try NuiSoak.json(figures))
    exit((figures["failures"] as? [String] ?? []).isEmpty ? 0 : 1)
} catch let failure as SoakFailure {
    print(#"{"surface": "\#(arguments[1])", "failures": ["\#(failure.description.replacingOccurrences(of: "\"", with: "'"))"]}"#)
    exit(1)
} catch {
    print(#"{"surface": "\#(arguments[1])", "failures": ["\#(String(describing: error).replacingOccurrences(of: "\"", with: "'"))"]}"#)
    exit(1)
}
