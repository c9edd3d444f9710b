import AudioFrontEnd
import Glibc

// libFuzzer target: bytes as an audio file (any format libsndfile reads: WAV, FLAC, Ogg, AIFF, ...) through the
// loader as `afe process` / `afe stream` use it: AudioFile(contentsOf:), one channel and the downmix as 16-bit
// samples, and a rate the front end takes resampled to the mic's rate. A crash, a trap, a sanitizer report or
// libFuzzer's memory limit (a header claim honoured before reading) is a finding.

private let path: String = {
    let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(directory)/afe-fuzz-audio-\(getpid())"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { fatalError("cannot write \(path)") }
    var written = 0
    while written < size {
        let n = write(descriptor, data + written, size - written)
        guard n > 0 else { fatalError("short write to \(path)") }
        written += n
    }
    close(descriptor)
    guard let file = try? AudioFile(contentsOf: path) else { return 0 }
    _ = file.int16Samples
    _ = file.downmixed()
    guard let mono = try? file.channel(0) else { return 0 }
    _ = try? file.channel(file.channelCount)
    if file.sampleRate != 16000, let converter = try? SampleRateConverter(inputRate: file.sampleRate, outputRate: 16000) {
        _ = SampleConversion.int16(from: converter.resample(mono))
    }
    return 0
}
