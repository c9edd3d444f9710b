import AudioPlayback

// libFuzzer target: bytes as a synthesis stream through PlaybackDecoder, as the player's worker feeds it.
// Byte 0 picks the format (modulo 4: pcm, wav, mp3, opus) and the playback rate; byte 1 the piece size the
// network splits the stream into (1...256 bytes, or the whole stream); the rest is the stream, then finish().
// A typed PlaybackDecodeError is an answer; a crash, a trap, a sanitizer report or libFuzzer's memory limit (a
// header claim honoured before reading) is a finding.

private let formats: [SynthesisAudioFormat] = [.pcm, .wav, .mp3, .opus]
private let rates = [8000, 16000, 22050, 24000, 44100, 48000]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaybackDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let format = formats[Int(data[0]) % formats.count]
    let rate = rates[Int(data[0] >> 2) % rates.count]
    let piece = data[1] == 0 ? size : Int(data[1])
    guard let decoder = try? PlaybackDecoder(format: format, sampleRate: rate, outputRate: rate == 22050 ? 16000 : rate) else {
        return 0
    }
    var produced = 0
    var offset = 2
    do {
        while offset < size {
            let n = min(piece, size - offset)
            try decoder.decode(UnsafeRawBufferPointer(start: data + offset, count: n)) { produced += $0.count }
            offset += n
        }
        try decoder.finish { produced += $0.count }
    } catch {
        // Typed errors are answers; the decoder must refuse further input after one.
        if (try? decoder.decode(UnsafeRawBufferPointer(start: data, count: 1)) { _ in }) != nil { fatalError("decode after an error") }
    }
    precondition(produced == decoder.samplesOut)
    return 0
}
