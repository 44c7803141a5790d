import FuzzSupport
@testable import LiteInterpreter

/// One input: the bytes of a `.tflite` file. Loading reads the flatbuffer, checks the graph,
/// folds constants, packs weights, reads the metadata and the appended archive and makes the
/// memory plan; any problem must be a thrown `ModelError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    if let model = try? Model(bytes: bytes) {
        for name in model.associatedFileNames { _ = try? model.associatedFile(named: name) }
    }
    return 0
}

@_cdecl("FuzzModel_main")
public func fuzzModelMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
