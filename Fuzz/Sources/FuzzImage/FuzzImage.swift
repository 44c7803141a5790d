import FuzzSupport
@testable import MediaIO
@testable import VisionTasks

/// One input: an image file's bytes (JPEG or PNG, told by the signature as for a file). Decoding
/// goes through libjpeg-turbo or libpng, our JPEG reconstruction, the EXIF reader and the
/// reorientation; the result is converted to RGB as the tasks do.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    if let image = try? ImageDecoder.decode(buffer, source: "fuzz") {
        _ = image.pixels.convertedToRGB8()
    }
    return 0
}

@_cdecl("FuzzImage_main")
public func fuzzImageMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
