import FuzzSupport
@testable import LiteInterpreter

/// One input, read two ways: as a TFLITE_METADATA buffer (the M001 flatbuffer) and as a model
/// file whose tail may be a zip archive of associated files. Both must throw, never crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMetadata(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let buffer = UnsafeRawBufferPointer(start: data, count: size)
    _ = try? MetadataParser.parse(buffer)
    _ = try? AssociatedFilesArchive(modelBytes: [UInt8](buffer))
    return 0
}

@_cdecl("FuzzMetadata_main")
public func fuzzMetadataMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
