import FuzzSupport
@testable import VisionTasks

/// One input: the bytes of a `.task` bundle. Opening reads the zip directory and every member;
/// then every nested `.task` is opened (depth first, as `member(named:)` searches) and a member
/// name MediaPipe's bundles use is looked up through the nesting.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTaskBundle(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    guard let bundle = try? TaskBundle(bytes: bytes) else { return 0 }
    openNested(bundle)
    _ = try? bundle.member(named: "hand_detector.tflite")
    return 0
}

private func openNested(_ bundle: TaskBundle) {
    for name in bundle.memberNames where name.hasSuffix(".task") {
        if let inner = try? bundle.bundle(named: name) { openNested(inner) }
    }
}

@_cdecl("FuzzTaskBundle_main")
public func fuzzTaskBundleMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
