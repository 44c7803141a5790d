import Foundation
import FuzzServerInput
import FuzzSupport
@testable import LiteInterpreter
@testable import MediaIO
@testable import VisionTasks
import ZIPFoundation

/// `FuzzSeeds OUTDIR MODELS MEDIA`: writes each fuzz target's seed corpus into `OUTDIR/<target>/`:
/// small real inputs (the installed models, the shared photos shrunk to thumbnails) and the kinds
/// of damage the tests make (truncations, byte flips, absurd sizes, unsafe names). Seeds are kept
/// small (a few KB) so that the fuzzers run fast; nothing here is committed.
@_cdecl("FuzzSeeds_main")
public func fuzzSeedsMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 4 else {
        FileHandle.standardError.write(Data("usage: FuzzSeeds OUTDIR MODELS_FOLDER MEDIA_FOLDER\n".utf8))
        return 2
    }
    do {
        var seeds = SeedWriter(root: URL(fileURLWithPath: arguments[1]))
        let models = URL(fileURLWithPath: arguments[2]), media = URL(fileURLWithPath: arguments[3])
        try modelSeeds(&seeds, models: models)
        try bundleSeeds(&seeds, models: models)
        try imageSeeds(&seeds, media: media)
        try rawFrameSeeds(&seeds)
        try poseSampleSeeds(&seeds)
        try jpegReconstructionSeeds(&seeds)
        try serverSeeds(&seeds, media: media)
        print(seeds.summary)
        return 0
    } catch {
        FileHandle.standardError.write(Data("FuzzSeeds: \(error)\n".utf8))
        return 1
    }
}

/// libFuzzer calls this only when the program is run as a fuzzer, which FuzzSeeds never is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSeedsUnused(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { 0 }

struct SeedWriter {
    let root: URL
    private var counts: [String: Int] = [:]

    init(root: URL) { self.root = root }

    mutating func add(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
        let folder = root.appendingPathComponent(target)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(name))
        counts[target, default: 0] += 1
    }

    var summary: String { counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) seeds" }.joined(separator: "\n") }
}

/// A deterministic generator, so that a seed corpus is the same on every run.
struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Truncations at a few lengths and single-byte flips, as MalformedModelTests and BadImageTests make.
func damaged(_ bytes: [UInt8], seed: UInt64, flips: Int) -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    for fraction in [1, 2, 4, 8] where bytes.count > 16 {
        out.append(("truncated-\(fraction)", Array(bytes.prefix(bytes.count * fraction / 10))))
    }
    var random = SplitMix(state: seed)
    for i in 0..<flips where !bytes.isEmpty {
        var copy = bytes
        let at = random.below(copy.count)
        copy[at] ^= UInt8(1 << random.below(8))
        out.append(("flip-\(i)", copy))
    }
    return out
}

// MARK: - Models and metadata

/// Models small enough to fuzz quickly whole (the gesture classifiers carry metadata and labels).
let smallModels = ["canned_gesture_classifier.tflite", "custom_gesture_classifier.tflite"]
/// Larger models, of which only the metadata buffer and a synthetic appended archive are seeds.
let largeModels = ["gesture_embedder.tflite", "hand_landmark_lite.tflite", "palm_detection_lite.tflite", "pose_detection.tflite"]

func modelSeeds(_ seeds: inout SeedWriter, models: URL) throws {
    for name in smallModels + largeModels {
        let url = models.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else {
            print("FuzzSeeds: \(url.path) is missing; skipped")
            continue
        }
        let bytes = [UInt8](data)
        let stem = (name as NSString).deletingPathExtension
        if smallModels.contains(name) {
            try seeds.add("model", stem, bytes)
            for (kind, damagedBytes) in damaged(bytes, seed: UInt64(bytes.count), flips: 24) {
                try seeds.add("model", "\(stem)-\(kind)", damagedBytes)
            }
            try seeds.add("metadata", "\(stem)-whole", bytes)
        }
        if let metadata = try metadataBuffer(bytes) {
            try seeds.add("metadata", "\(stem)-M001", metadata)
            for (kind, damagedBytes) in damaged(metadata, seed: UInt64(metadata.count), flips: 8) {
                try seeds.add("metadata", "\(stem)-M001-\(kind)", damagedBytes)
            }
        }
    }
    // A model-like prefix followed by an appended archive of associated files, stored and deflated.
    let labels = Array("background\nthumbs_up\nthumbs_down\nvictory\n".utf8)
    for deflate in [false, true] {
        let archive = try zip([("labels.txt", labels, deflate), ("labels_fr.txt", labels, deflate)])
        let appended = Array(repeating: 0x5A, count: 64) + archive
        try seeds.add("metadata", "appended-zip-\(deflate ? "deflated" : "stored")", appended)
        for (kind, damagedBytes) in damaged(appended, seed: deflate ? 7 : 8, flips: 16) {
            try seeds.add("metadata", "appended-zip-\(deflate ? "deflated" : "stored")-\(kind)", damagedBytes)
        }
    }
}

/// The TFLITE_METADATA buffer of a model, if it has one.
func metadataBuffer(_ bytes: [UInt8]) throws -> [UInt8]? {
    try bytes.withUnsafeBytes { raw in
        let file = try ModelFile(reader: FlatBufferReader(raw))
        guard let entry = file.metadata.first(where: { $0.name == MetadataParser.entryName }),
              entry.buffer >= 0, entry.buffer < file.buffers.count else { return nil }
        return Array(raw[file.buffers[entry.buffer].range])
    }
}

// MARK: - Task bundles

func zip(_ members: [(String, [UInt8], Bool)]) throws -> [UInt8] {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-seed-\(UUID().uuidString).zip")
    defer { try? FileManager.default.removeItem(at: url) }
    do {
        let archive = try Archive(url: url, accessMode: .create)
        for (name, bytes, deflate) in members {
            let data = Data(bytes)
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(data.count),
                compressionMethod: deflate ? .deflate : .none
            ) { position, size in
                data.subdata(in: Int(position)..<min(Int(position) + size, data.count))
            }
        }
    }
    return [UInt8](try Data(contentsOf: url))
}

func bundleSeeds(_ seeds: inout SeedWriter, models: URL) throws {
    let small = smallModels.compactMap { try? [UInt8](Data(contentsOf: models.appendingPathComponent($0))) }
    let modelA = small.first ?? Array(repeating: 1, count: 300)
    let modelB = small.dropFirst().first ?? Array(repeating: 2, count: 300)
    for deflate in [false, true] {
        let suffix = deflate ? "deflated" : "stored"
        // MediaPipe's layout: gesture_recognizer.task holds hand_landmarker.task and the classifiers.
        let landmarker = try zip([("hand_detector.tflite", modelA, deflate), ("hand_landmarks_detector.tflite", modelB, deflate)])
        let gestures = try zip([("gesture_embedder.tflite", modelA, deflate), ("canned_gesture_classifier.tflite", modelB, deflate)])
        let recognizer = try zip([("hand_landmarker.task", landmarker, deflate), ("hand_gesture_recognizer.task", gestures, deflate)])
        try seeds.add("taskbundle", "hand_landmarker-\(suffix)", landmarker)
        try seeds.add("taskbundle", "gesture_recognizer-\(suffix)", recognizer)
        for (kind, damagedBytes) in damaged(recognizer, seed: deflate ? 3 : 4, flips: 32) {
            try seeds.add("taskbundle", "gesture_recognizer-\(suffix)-\(kind)", damagedBytes)
        }
    }
    // Regression (fixed): zip64 records putting the central directory beyond 2^63 made ZIPFoundation
    // trap (TaskBundleTests.testZip64DirectoryOffsetsOutOfRangeAreAnErrorNotATrap has the same bytes).
    let zip64Hex = "504b03041460e06060385657000000" + "75af8c9d504b0606b980b8253755afa4000027b52c3547c130"
        + "0045f9d417a02cc2a0c020c320c1c8806a718037481b2b8811082da1742658192d50ad504b060701"
        + "02150314000008000052" + "7b785d126b504b0506000000000200020071000000cb0000000000"
    let zip64 = stride(from: 0, to: zip64Hex.count, by: 2).map { i -> UInt8 in
        let start = zip64Hex.index(zip64Hex.startIndex, offsetBy: i)
        return UInt8(zip64Hex[start..<zip64Hex.index(start, offsetBy: 2)], radix: 16) ?? 0
    }
    try seeds.add("taskbundle", "regression-zip64-offset", zip64)
    // The same archive appended to a model crashed the model target (MalformedModelTests has it).
    try seeds.add("model", "regression-appended-zip64-offset", modelA + zip64)
    try seeds.add("metadata", "regression-appended-zip64-offset", Array(repeating: 0x5A, count: 64) + zip64)
    // Names the reader must refuse, duplicates, and nesting to the depth limit and beyond.
    try seeds.add("taskbundle", "unsafe-name", try zip([("../escape.tflite", modelA, false)]))
    try seeds.add("taskbundle", "duplicate", try zip([("x.tflite", modelA, false), ("x.tflite", modelB, false)]))
    var nested = try zip([("deep.tflite", Array(modelA.prefix(64)), false)])
    for level in 0..<6 {
        nested = try zip([("readme.txt", Array("level \(level)".utf8), false), ("inner\(level).task", nested, level % 2 == 0)])
        try seeds.add("taskbundle", "nested-\(level)", nested)
    }
}

// MARK: - Images

/// Nearest-neighbour thumbnail, at most `side` pixels a side.
func thumbnail(_ image: PixelBuffer, side: Int) -> PixelBuffer? {
    let rgb = image.convertedToRGB8().packed()
    let scale = max(1, max(rgb.width, rgb.height) / side)
    let w = max(1, rgb.width / scale), h = max(1, rgb.height / scale)
    var bytes = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
        for x in 0..<w {
            for c in 0..<3 { bytes[(y * w + x) * 3 + c] = rgb.bytes[(y * scale * rgb.width + x * scale) * 3 + c] }
        }
    }
    return try? PixelBuffer(width: w, height: h, format: .rgb8, bytes: bytes)
}

func gray(_ image: PixelBuffer) -> PixelBuffer? {
    var bytes: [UInt8] = []
    for i in stride(from: 0, to: image.bytes.count, by: 3) {
        let r = Int(image.bytes[i]) * 77, g = Int(image.bytes[i + 1]) * 150, b = Int(image.bytes[i + 2]) * 29
        bytes.append(UInt8((r + g + b) >> 8))
    }
    return try? PixelBuffer(width: image.width, height: image.height, format: .gray8, bytes: bytes)
}

func rgba(_ image: PixelBuffer) -> PixelBuffer? {
    var bytes: [UInt8] = []
    for i in stride(from: 0, to: image.bytes.count, by: 3) {
        bytes += image.bytes[i..<(i + 3)]
        bytes.append(UInt8(truncatingIfNeeded: i))
    }
    return try? PixelBuffer(width: image.width, height: image.height, format: .rgba8, bytes: bytes)
}

/// A JPEG with an EXIF APP1 segment declaring `orientation` (as TestImages makes them).
func withEXIF(_ jpeg: [UInt8], orientation: Int, bigEndian: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
    var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
    tiff += u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
    let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
    let length = payload.count + 2
    return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
}

func imageSeeds(_ seeds: inout SeedWriter, media: URL) throws {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? []
    let photos = files.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted().prefix(6)
    if photos.isEmpty { print("FuzzSeeds: no photos in \(media.path); image seeds are synthetic only") }
    var sources: [(String, PixelBuffer)] = []
    for name in photos {
        guard let decoded = try? ImageDecoder.decode(contentsOfFile: media.appendingPathComponent(name).path),
              let small = thumbnail(decoded.pixels, side: 40) else { continue }
        sources.append(((name as NSString).deletingPathExtension, small))
    }
    var pattern = [UInt8](repeating: 0, count: 17 * 9 * 3)
    for i in pattern.indices { pattern[i] = UInt8(truncatingIfNeeded: i * 37) }
    if let odd = try? PixelBuffer(width: 17, height: 9, format: .rgb8, bytes: pattern) { sources.append(("pattern-17x9", odd)) }

    // Regressions (fixed): a tiny PNG and JPEG declaring 16384x16384 pixels made the decoders
    // allocate 1 GiB and 512 MiB before finding the data missing (BadImageTests has the same).
    let ihdr: [UInt8] = [0, 0, 0x40, 0, 0, 0, 0x40, 0, 8, 6, 0, 0, 0]
    let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
        + pngChunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]) + pngChunk("IEND", [])
    try seeds.add("image", "regression-png-bomb.png", png)
    if let (_, first) = sources.last, var jpeg = try? ImageEncoder.jpeg(first),
       let sof = (2..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) {
        jpeg[sof + 5] = 0x40; jpeg[sof + 6] = 0; jpeg[sof + 7] = 0x40; jpeg[sof + 8] = 0
        try seeds.add("image", "regression-jpeg-bomb.jpg", jpeg)
    }

    // Regression (fixed, defect 6): a text chunk declaring 1 685 021 284 bytes, on which libpng
    // only warned and then allocated them (BadImageTests and FuzzReproducers make the same).
    if let (_, first) = sources.first, let small = try? ImageEncoder.png(first) {
        try seeds.add("image", "regression-png-chunk-gigabytes.png",
                      Array(small.prefix(33)) + [0x64, 0x6F, 0x62, 0x64] + Array("tEXt".utf8) + [0x61, 0x62])
    }

    for (index, (stem, image)) in sources.enumerated() {
        let jpeg = try ImageEncoder.jpeg(image, quality: index % 2 == 0 ? 90 : 40)
        try seeds.add("image", "\(stem).jpg", jpeg)
        try seeds.add("image", "\(stem).png", try ImageEncoder.png(image))
        if let g = gray(image) {
            try seeds.add("image", "\(stem)-gray.jpg", try ImageEncoder.jpeg(g))
            try seeds.add("image", "\(stem)-gray.png", try ImageEncoder.png(g))
        }
        if let a = rgba(image) { try seeds.add("image", "\(stem)-rgba.png", try ImageEncoder.png(a)) }
        try seeds.add("image", "\(stem)-exif\(index % 8 + 1).jpg", withEXIF(jpeg, orientation: index % 8 + 1, bigEndian: index % 2 == 0))
        if index < 2 {
            for (kind, damagedBytes) in damaged(jpeg, seed: UInt64(index), flips: 12) {
                try seeds.add("image", "\(stem)-\(kind).jpg", damagedBytes)
            }
            for (kind, damagedBytes) in damaged(try ImageEncoder.png(image), seed: UInt64(index + 10), flips: 12) {
                try seeds.add("image", "\(stem)-\(kind).png", damagedBytes)
            }
        }
    }
}

/// A PNG chunk: length, type, data, CRC-32.
func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * UInt32($0))) & 0xFF) } }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in Array(type.utf8) + data {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return be32(UInt32(data.count)) + Array(type.utf8) + data + be32(~crc)
}

// MARK: - Raw frames

func rawFrameSeeds(_ seeds: inout SeedWriter) throws {
    let formats: [(String, Int)] = [("rgb24", 3), ("rgba", 4), ("bgra", 4), ("gray", 1)]
    for (name, bytesPerPixel) in formats {
        let frame = (0..<(5 * 3 * bytesPerPixel)).map { UInt8(truncatingIfNeeded: $0 * 29) }
        try seeds.add("rawframes", "\(name)-two-frames", Array("5x3:\(name)\n".utf8) + frame + frame)
        try seeds.add("rawframes", "\(name)-partial", Array("5x3:\(name)\n".utf8) + frame + frame.prefix(7))
    }
    for name in ["nv12", "nv12full", "nv12video"] {
        // 5x3 NV12: 15 luma bytes, then 3x2 interleaved chroma pairs.
        let frame = (0..<(15 + 12)).map { UInt8(truncatingIfNeeded: 16 + $0 * 7) }
        try seeds.add("rawframes", "\(name)-one-frame", Array("5x3:\(name)\n".utf8) + frame)
    }
    try seeds.add("rawframes", "empty-stream", Array("2x2:gray\n".utf8))
    try seeds.add("rawframes", "bad-spec", Array("640x:rgb24\n".utf8) + [1, 2, 3])
}

// MARK: - Pose samples CSV

/// ML Kit samples CSVs: small valid ones (two classes of stick figures with jitter), the same
/// damaged, and the bad lines `PoseSampleCSVTests` makes (NaN, a header, a short line, CRLF and a
/// byte order mark).
func poseSampleSeeds(_ seeds: inout SeedWriter) throws {
    var random = SplitMix(state: 0x5EED_C5F)
    func figure(down: Bool) -> [SIMD3<Float>] {
        (0..<33).map { index in
            let side: Float = index % 2 == 0 ? 1 : -1
            let height = Float(index) * (down ? 8 : 12)
            let jitter = Float(random.below(200)) / 100 - 1
            return SIMD3(500 + side * Float(index) * 3 + jitter, 200 + height + jitter, Float(random.below(100)) - 50)
        }
    }
    var samples: [PoseSample] = []
    for index in 0..<8 {
        samples.append(try PoseSample(name: "s\(index).jpg", className: index % 2 == 0 ? "squats_up" : "squats_down",
                                      landmarks: figure(down: index % 2 == 1)))
    }
    let csv = Array(PoseSample.csv(samples).utf8)
    try seeds.add("posesamples", "eight-samples", csv)
    try seeds.add("posesamples", "crlf-bom", [0xEF, 0xBB, 0xBF] + Array(PoseSample.csv(samples).replacingOccurrences(of: "\n", with: "\r\n").utf8))
    for (name, bytes) in damaged(csv, seed: 11, flips: 6) { try seeds.add("posesamples", name, bytes) }
    let line = samples[0].csvLine
    var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    fields[2] = "nan"
    try seeds.add("posesamples", "nan", Array((fields.joined(separator: ",") + "\n" + line).utf8))
    try seeds.add("posesamples", "header", Array(("name,class," + (1...99).map { "c\($0)" }.joined(separator: ",") + "\n" + line).utf8))
    try seeds.add("posesamples", "short-line", Array(line.split(separator: ",").dropLast(5).joined(separator: ",").utf8))
    // Regressions (fixed): a name with a vertical tab (which Swift counts as a line break) was
    // written with "_" and read back different; a byte order mark starting a name on the second
    // line would start the first line when written, and be dropped when read back.
    try seeds.add("posesamples", "regression-name-vertical-tab", Array(("a\u{0B}b" + line.drop { $0 != "," }).utf8))
    try seeds.add("posesamples", "regression-name-byte-order-mark", Array(("\n\u{FEFF}" + line).utf8))
}

// MARK: - JPEG reconstruction kernels (Fuzz/C/fuzz_jpeg_reconstruct.c's input layout)

func le16(_ values: [Int]) -> [UInt8] { values.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] } }

func jpegReconstructionSeeds(_ seeds: inout SeedWriter) throws {
    // Op 0, the inverse DCT: block count - 1, extra stride, 64 quantisation steps, coefficients.
    let flat = [16] + [Int](repeating: 1, count: 63)
    try seeds.add("jpegreconstruct", "idct-dc-only", [0, 0, 0] + le16(flat) + le16([40] + [Int](repeating: 0, count: 63)))
    try seeds.add("jpegreconstruct", "idct-two-blocks", [0, 1, 3] + le16(flat) + le16((0..<128).map { ($0 * 7) % 31 - 15 }))
    // Regression (fixed): quantisation steps of 32767 and a checkerboard of +1/-1 coefficients
    // overflowed 32-bit signed arithmetic in the IDCT's second pass (UBSan: signed overflow).
    let checkerboard = (0..<64).map { ($0 / 8 + $0 % 8) % 2 == 0 ? 1 : -1 }
    try seeds.add("jpegreconstruct", "regression-idct-overflow", [0, 0, 0] + le16([Int](repeating: 0x7FFF, count: 64)) + le16(checkerboard))
    // Op 1, upsampling: low width (16 bits), h - 1, v - 1, the near and far rows.
    for (h, v) in [(2, 2), (2, 1), (1, 2), (3, 1), (4, 4)] {
        let row = (0..<13).map { UInt8($0 * 19) }
        try seeds.add("jpegreconstruct", "upsample-\(h)x\(v)", [1] + le16([13]) + [UInt8(h - 1), UInt8(v - 1)] + row + row.reversed())
    }
    // Ops 2, 3, 4: YCbCr to RGB, RGB interleave, CMYK to RGB of a row of 11 pixels.
    for op: UInt8 in [2, 3, 4] {
        try seeds.add("jpegreconstruct", "colour-\(op)", [op] + le16([11]) + (0..<44).map { UInt8($0 * 23 % 256) })
    }
    // Op 5, ck_jpeg_planes_to_rgb: width - 1, height - 1, is_rgb, then per plane h - 1, v - 1, and
    // the extra columns, rows and stride beyond the least the header allows, then its samples.
    let layouts: [(String, [(Int, Int)])] = [
        ("420", [(1, 1), (2, 2), (2, 2)]), ("422", [(1, 1), (2, 1), (2, 1)]), ("444", [(1, 1), (1, 1), (1, 1)]),
        ("mixed", [(3, 1), (1, 4), (4, 4)]),
    ]
    for (name, factors) in layouts {
        for (width, height, isRGB) in [(17, 9, 0), (33, 16, 1)] {
            var seed: [UInt8] = [5, UInt8(width - 1), UInt8(height - 1), UInt8(isRGB)]
            for (i, (h, v)) in factors.enumerated() {
                let extraWidth = i % 3, extraHeight = i % 2, extraStride = i * 3
                seed += [UInt8(h - 1), UInt8(v - 1), UInt8(extraWidth), UInt8(extraHeight), UInt8(extraStride)]
                let lowWidth = (width + h - 1) / h + extraWidth, lowHeight = (height + v - 1) / v + extraHeight
                let count = (lowWidth + extraStride) * (lowHeight - 1) + lowWidth
                seed += (0..<count).map { UInt8(truncatingIfNeeded: 40 + ($0 * 7 + i * 50) % 180) }
            }
            try seeds.add("jpegreconstruct", "planes-\(name)-\(width)x\(height)\(isRGB == 1 ? "-rgb" : "")", seed)
        }
    }
}

// MARK: - The live server (FuzzServerInput's layouts)

/// Shared stills the server tests send, shrunk to thumbnails (a few hundred bytes to 1.5 KB, so
/// that they pass the tight limits too).
let serverStills = [
    "hand_thumb_up_left_01.jpg", "hand_thumb_down_right_02_selfie.jpg", "pose_fullbody_yoga_warrior.jpg", "neg_banana.jpg",
]

/// An 8-byte little-endian timestamp and an image: a live frame message, as the clients send it.
func liveFrame(_ image: [UInt8], timestamp: Int64) -> FuzzLiveMessage {
    .binary((0..<8).map { UInt8(truncatingIfNeeded: timestamp >> (8 * Int64($0))) } + image)
}

func serverSeeds(_ seeds: inout SeedWriter, media: URL) throws {
    var images: [(String, [UInt8])] = []
    for name in serverStills {
        guard let decoded = try? ImageDecoder.decode(contentsOfFile: media.appendingPathComponent(name).path),
              let small = thumbnail(decoded.pixels, side: 32) else {
            print("FuzzSeeds: \(name) is missing; server seeds use the others")
            continue
        }
        let stem = (name as NSString).deletingPathExtension
        images.append(("\(stem).jpg", try ImageEncoder.jpeg(small, quality: 60)))
        images.append(("\(stem).png", try ImageEncoder.png(small)))
    }
    // Just over the tight limit of 64 x 64 pixels (an 80-pixel thumbnail), refused from the header.
    var overLimit: [(String, [UInt8])] = []
    if let name = serverStills.first,
       let decoded = try? ImageDecoder.decode(contentsOfFile: media.appendingPathComponent(name).path),
       let larger = thumbnail(decoded.pixels, side: 80) {
        overLimit = [("over-pixel-limit.jpg", try ImageEncoder.jpeg(larger, quality: 30)), ("over-pixel-limit.png", try ImageEncoder.png(larger))]
    }
    // The tests' oversized image: a 1x1 PNG whose header declares 5000 x 5000 pixels.
    var hugePNG = try ImageEncoder.png(PixelBuffer(width: 1, height: 1, format: .gray8, bytes: [0]))
    hugePNG.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])
    let jpeg = images.first { $0.0.hasSuffix(".jpg") }?.1 ?? hugePNG
    let png = images.first { $0.0.hasSuffix(".png") }?.1 ?? hugePNG

    // Live sessions. Every image as one frame, under both sets of limits.
    for (name, image) in images + overLimit {
        for tight in [false, true] {
            try seeds.add("live", "frame-\(name)\(tight ? "-tight" : "")", LiveSessionInput.encode(
                tight: tight, query: "task=gesture", messages: [liveFrame(image, timestamp: 1000)]))
        }
    }
    // LiveSessionTests' sequence: frames with increasing timestamps, then a stale one, then the
    // options of docs/server.md switching to pose.
    let sequence = images.enumerated().map { liveFrame($1.1, timestamp: 1000 + Int64($0) * 100) }
    try seeds.add("live", "sequence", LiveSessionInput.encode(tight: false, query: "task=hands&numHands=2", messages: Array(sequence.prefix(6))))
    try seeds.add("live", "options-then-frames", LiveSessionInput.encode(tight: false, query: "", messages: [
        liveFrame(jpeg, timestamp: 100), liveFrame(jpeg, timestamp: 50),
        .text("{\"task\": \"pose\", \"numPoses\": 2}"), liveFrame(png, timestamp: 200),
        .text("{\"numHands\": 2}"), .text("{\"task\": \"hands\", \"mirrored\": true, \"smoothing\": true}"),
        liveFrame(jpeg, timestamp: 300),
    ]))
    // Every option, valid, as query parameters and as an options message.
    let options: [(String, String, String)] = [
        ("task", "\"gesture\"", "gesture"), ("task", "\"hands\"", "hands"), ("task", "\"pose\"", "pose"),
        ("numHands", "4", "4"), ("numPoses", "1", "1"), ("minHandDetectionConfidence", "0.25", "0.25"),
        ("minHandPresenceConfidence", "1", "1"), ("minPoseDetectionConfidence", "0", "0"),
        ("minPosePresenceConfidence", "0.5", "0.5"), ("minTrackingConfidence", "0.75", "0.75"),
        ("segmentationMasks", "true", "true"), ("mirrored", "false", "false"), ("smoothing", "true", "true"),
    ]
    for (name, json, query) in options {
        try seeds.add("live", "option-\(name)-\(query)", LiveSessionInput.encode(
            tight: false, query: "\(name)=\(query)", messages: [.text("{\"\(name)\": \(json)}"), liveFrame(png, timestamp: 1)]))
    }
    // Workout messages (WorkoutSessionTests): samples of two classes, then frames, a reset and a
    // stop; and bad ones, each followed by a frame. The landmarks are made up (a spread of points
    // per sample): the CSV reader and the classifier take any finite pose with a body.
    func workoutSamples(_ classes: [String]) -> String {
        classes.enumerated().map { i, name in
            let values = (0..<99).map { j in String(Float((i * 7 + j * 13) % 97) * 3.5 + Float(j)) }
            return "s\(i),\(name)," + values.joined(separator: ",") + "\n"
        }.joined()
    }
    func workout(_ body: String) -> FuzzLiveMessage { .text("{\"workout\": \(body)}") }
    func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\n", with: "\\n") + "\"" }
    let eight = workoutSamples(Array(repeating: "up", count: 8) + Array(repeating: "down", count: 8))
    try seeds.add("live", "workout-start-reset-stop", LiveSessionInput.encode(tight: false, query: "task=pose", messages: [
        workout("{\"samples\": \(quoted(eight)), \"count\": [\"down\"]}"), liveFrame(png, timestamp: 1),
        workout("{\"reset\": true}"), liveFrame(png, timestamp: 2), .text("{\"numPoses\": 2}"),
        workout("{\"stop\": true}"), liveFrame(png, timestamp: 3),
    ]))
    let badWorkouts: [(String, FuzzLiveMessage)] = [
        ("number", workout("3")), ("empty", workout("{}")), ("unknown-key", workout("{\"speed\": 2}")),
        ("reset-without", workout("{\"reset\": true}")), ("beside-option", .text("{\"workout\": {\"stop\": true}, \"numPoses\": 2}")),
        ("one-class", workout("{\"samples\": \(quoted(workoutSamples(Array(repeating: "up", count: 12))))}")),
        ("four-samples", workout("{\"samples\": \(quoted(workoutSamples(["up", "down", "up", "down"])))}")),
        ("columns", workout("{\"samples\": \"a,b,1,2,3\\n\"}")), ("count-unknown", workout("{\"samples\": \(quoted(eight)), \"count\": [\"c\"]}")),
    ]
    for (name, message) in badWorkouts {
        try seeds.add("live", "bad-workout-\(name)", LiveSessionInput.encode(
            tight: false, query: "task=pose", messages: [message, liveFrame(png, timestamp: 1)]))
    }
    try seeds.add("live", "bad-workout-on-gesture", LiveSessionInput.encode(
        tight: false, query: "task=gesture", messages: [workout("{\"samples\": \(quoted(eight))}"), liveFrame(jpeg, timestamp: 1)]))

    // The teach messages of docs/server.md, between frames, then TeachSessionTests' bad ones.
    try seeds.add("live", "teach", LiveSessionInput.encode(tight: false, query: "task=gesture", messages: [
        .text("{\"teach\": {\"record\": \"none\"}}"), liveFrame(jpeg, timestamp: 100), .text("{\"teach\": {\"stop\": true}}"),
        .text("{\"teach\": {\"record\": \"wave\"}}"), liveFrame(jpeg, timestamp: 200), .text("{\"teach\": {\"clear\": \"wave\"}}"),
        .text("{\"teach\": {\"clear\": true}}"), .text("{\"teach\": {\"train\": {\"name\": \"mine\", \"epochs\": 10, \"batchSize\": 2}}}"),
        .text("{\"teach\": {\"use\": \"mine\"}}"), .text("{\"teach\": {\"use\": null}}"),
        .text("{\"teach\": {\"record\": 5}}"), .text("{\"teach\": {\"stop\": true}, \"numHands\": 2}"),
        .text("{\"teach\": {\"train\": {\"epochs\": 1e300}}}"), .text("{\"teach\": {\"record\": \"two\\nlines\"}}"),
    ]))
    // LiveSessionTests' bad messages, each followed by a good frame; and the refused URLs.
    let tooLong = String(repeating: "x", count: 300)
    let bad: [(String, FuzzLiveMessage)] = [
        ("garbage", .text("garbage {{{")), ("numHands-42", .text("{\"numHands\": 42}")), ("too-long-text", .text(tooLong)),
        ("unknown-option", .text("{\"colour\": \"blue\"}")), ("array", .text("[1, 2]")), ("nested", .text("{\"numHands\": {\"a\": 1}}")),
        ("short-binary", .binary([1, 2, 3])), ("negative-timestamp", .binary([0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0xD8, 0xFF])),
        ("not-an-image", liveFrame(Array("not an image at all".utf8), timestamp: 1)),
        ("truncated-jpeg", liveFrame(Array(jpeg.prefix(jpeg.count / 3)), timestamp: 2)),
        ("huge-png", liveFrame(hugePNG, timestamp: 3)),
    ]
    for (name, message) in bad {
        for tight in [false, true] {
            try seeds.add("live", "bad-\(name)\(tight ? "-tight" : "")", LiveSessionInput.encode(
                tight: tight, query: "task=gesture", messages: [message, liveFrame(jpeg, timestamp: 100)]))
        }
    }
    // Regression (fixed): stray bytes before a JPEG's frame header, which libjpeg skips, hid the
    // header from ImageHeader and the pixel limit was never applied (FrameLimitTests has the same).
    let stray = strayBytesBeforeFrameHeader(overLimit.first?.1 ?? jpeg)
    try seeds.add("live", "regression-stray-bytes-before-sof", LiveSessionInput.encode(
        tight: true, query: "task=gesture", messages: [liveFrame(stray, timestamp: 1)]))
    try seeds.add("http", "regression-stray-bytes-before-sof", HTTPRequestInput.encode(
        tight: true, target: "/v1/gesture", contentLength: String(stray.count), body: stray))
    for query in ["task=faces", "numHands=99", "minHandDetectionConfidence=2", "colour=blue", "numHands=%32&mirrored=tr%75e", "task"] {
        try seeds.add("live", "query-\(query)", LiveSessionInput.encode(tight: false, query: query, messages: [liveFrame(jpeg, timestamp: 1)]))
    }

    // HTTP requests: ServerHTTPTests' good and bad requests.
    for (name, image) in images + overLimit {
        let path = name.hasPrefix("pose") ? "/v1/pose?segmentationMasks=true" : name.hasSuffix(".png") ? "/v1/hands?numHands=2" : "/v1/gesture"
        for tight in [false, true] {
            try seeds.add("http", "\(name)\(tight ? "-tight" : "")", HTTPRequestInput.encode(
                tight: tight, target: path, contentLength: String(image.count), body: image))
        }
    }
    let requests: [(String, String, String?, [UInt8])] = [
        ("not-an-image", "/v1/gesture", nil, Array("hello, not an image".utf8)),
        ("empty", "/v1/gesture", "0", []),
        ("half-jpeg", "/v1/gesture", nil, Array(jpeg.prefix(jpeg.count / 2))),
        ("huge-png", "/v1/gesture", nil, hugePNG),
        ("declared-too-long", "/v1/gesture", "300000000", jpeg),
        ("declared-garbage", "/v1/hands", "12a", png),
        ("body-over-limit", "/v1/pose", nil, [UInt8](repeating: 0xFF, count: 1600)),
        ("numHands-99", "/v1/gesture?numHands=99", nil, jpeg),
        ("confidence-2", "/v1/gesture?minHandDetectionConfidence=2", nil, jpeg),
        ("unknown-option", "/v1/gesture?colour=blue", nil, jpeg),
        ("unknown-task", "/v1/faces", nil, jpeg),
        ("task-in-query", "/v1/hands?task=pose&numHands=3", nil, png),
        ("percent-encoded", "/v1/gesture?numHands=%32&mirrored=tr%75e&smoothing=%", nil, jpeg),
        ("query-without-values", "/v1/pose?numPoses&=&&segmentationMasks=", nil, png),
    ]
    for (name, target, length, body) in requests {
        for tight in [false, true] {
            try seeds.add("http", "\(name)\(tight ? "-tight" : "")", HTTPRequestInput.encode(
                tight: tight, target: target, contentLength: length, body: body))
        }
    }
}

/// A JPEG with the 93 stray bytes `scripts/fuzz http` put before its SOF0 marker (45 zeros, 48
/// times 0xA4), as `FuzzReproducers.jpegWithStrayBytesBeforeFrameHeader` makes it.
func strayBytesBeforeFrameHeader(_ jpeg: [UInt8]) -> [UInt8] {
    guard let sof = (2..<max(2, jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else { return jpeg }
    return Array(jpeg[..<sof]) + [UInt8](repeating: 0, count: 45) + [UInt8](repeating: 0xA4, count: 48) + Array(jpeg[sof...])
}
