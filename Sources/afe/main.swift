import AudioFrontEnd
import Foundation

// afe: the AudioFrontEnd command line. Every failure prints one line naming the problem and exits non-zero.
let arguments = Array(CommandLine.arguments.dropFirst())
let topUsage = """
usage: afe <command> [options]
commands:
  process   run the front end over files (afe process --help)
  stream    stream a file through the front end to a recognizer (afe stream --help)
  speak     synthesize text to an audio file through the speech-synthesis client (afe speak --help)
  converse  the whole loop offline: answer, simulated room, interrupting user, barge-in (afe converse --help)
"""
do {
    switch arguments.first {
    case "process":
        try ProcessCommand.run(try ProcessOptions(Array(arguments.dropFirst())))
    case "stream":
        try StreamCommand.run(try StreamOptions(Array(arguments.dropFirst())))
    case "speak":
        try SpeakCommand.run(try SpeakOptions(Array(arguments.dropFirst())))
    case "converse":
        try ConverseCommand.run(try ConverseOptions(Array(arguments.dropFirst())))
    case "--help", "-h", "help", nil:
        print(topUsage)
    case let other?:
        throw ArgumentReader.Failure(message: "unknown command '\(other)' (see afe --help)")
    }
} catch let failure as ArgumentReader.Failure {
    if failure.message.hasPrefix("usage:") { print(failure.message); exit(0) } // --help: asked for, so stdout
    FileHandle.standardError.write(("afe: " + failure.message + "\n").data(using: .utf8)!)
    exit(2)
} catch let failure as RunFailure {
    FileHandle.standardError.write(("afe: " + failure.message + "\n").data(using: .utf8)!)
    exit(1)
} catch let failure as NuiFailure {
    FileHandle.standardError.write(("afe: " + failure.message + "\n").data(using: .utf8)!)
    exit(1)
} catch let error as AudioFrontEndError {
    FileHandle.standardError.write("afe: \(error.message)\n".data(using: .utf8)!)
    exit(1)
} catch {
    FileHandle.standardError.write("afe: \(error)\n".data(using: .utf8)!)
    exit(1)
}
