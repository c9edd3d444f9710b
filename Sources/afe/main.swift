import AudioFrontEnd
import Foundation

// afe: the AudioFrontEnd command line. Every failure prints one line naming the problem and exits non-zero.
let arguments = Array(CommandLine.arguments.dropFirst())
let topUsage = """
usage: afe <command> [options]
commands:
  process   run the front end over files (afe process --help)
  stream    stream a file through the front end to a recognizer (afe stream --help)
"""
do {
    switch arguments.first {
    case "process":
        try ProcessCommand.run(try ProcessOptions(Array(arguments.dropFirst())))
    case "stream":
        try await StreamCommand.run(try StreamOptions(Array(arguments.dropFirst())))
    case "--help", "-h", nil:
        print(topUsage)
    case let other?:
        throw ArgumentReader.Failure(message: "unknown command '\(other)'\n\(topUsage)")
    }
} catch let failure as ArgumentReader.Failure {
    let isHelp = failure.message.hasPrefix("usage:")
    FileHandle.standardError.write(((isHelp ? "" : "afe: ") + failure.message + "\n").data(using: .utf8)!)
    exit(isHelp ? 0 : 2)
} catch let error as AudioFrontEndError {
    FileHandle.standardError.write("afe: \(error.message)\n".data(using: .utf8)!)
    exit(1)
} catch {
    FileHandle.standardError.write("afe: \(error)\n".data(using: .utf8)!)
    exit(1)
}
