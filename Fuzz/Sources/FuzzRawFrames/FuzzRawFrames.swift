import Foundation
import FuzzSupport
@testable import MediaIO
@testable import VisionTasks

/// One input: a `--raw` argument on the first line (e.g. `4x2:nv12`), then the raw stream. The
/// argument is parsed as the CLI parses it; the stream goes through a file to `RawFrameReader`
/// (as `vision-tasks ... --raw 4x2:nv12 frames.yuv` reads it), and every frame is converted to RGB.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRawFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let newline = bytes.firstIndex(of: 0x0A) ?? size
    let argument = String(decoding: bytes[0..<newline], as: UTF8.self)
    guard let spec = try? RawFrameSpec(parsing: argument) else { return 0 }
    let stream = newline < size ? Data(bytes[(newline + 1)...]) : Data()
    guard FileManager.default.createFile(atPath: streamPath, contents: stream),
          let reader = try? RawFrameReader(path: streamPath, spec: spec) else { return 0 }
    while let frame = try? reader.next() {
        _ = frame.convertedToRGB8()
    }
    return 0
}

/// One stream file per process (libFuzzer runs inputs one after another in a process).
private let streamPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("fuzz-raw-\(ProcessInfo.processInfo.processIdentifier).raw").path

@_cdecl("FuzzRawFrames_main")
public func fuzzRawFramesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
