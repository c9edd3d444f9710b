import SpeechStreaming

// libFuzzer target: a sequence of server messages through the client's parser and session state
// (ServerMessageProbe.run(fuzzInput:), which documents the input's layout). A crash, a trap or a sanitizer report
// is a finding. Tests/SpeechStreamingTests/FuzzRegressionTests replays Fuzz/regressions/FuzzServerMessages.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServerMessages(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    ServerMessageProbe.run(fuzzInput: UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
