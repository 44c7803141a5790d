import Foundation
@_spi(Apps) import MediaIO
import TestSupport
@_spi(Apps) import VisionTasks
import XCTest

final class ImageDecodingTests: XCTestCase {
    /// Our decoded pixels equal the ones MediaPipe decoded from the same files
    /// (reference/NAME.pixels.png), bit for bit.
    func testDecodedPixelsEqualMediaPipes() throws {
        let reference = try SharedTestData.file("reference")
        var report: [String] = []
        for url in try TestImages.stillImages() {
            let name = url.deletingPathExtension().lastPathComponent
            let ours = try ImageDecoder.decode(contentsOfFile: url.path)
            let theirs = try ImageDecoder.decode(contentsOfFile: reference.appendingPathComponent("\(name).pixels.png").path)
            XCTAssertEqual(ours.pixels.width, theirs.pixels.width, name)
            XCTAssertEqual(ours.pixels.height, theirs.pixels.height, name)
            guard ours.pixels.width == theirs.pixels.width, ours.pixels.height == theirs.pixels.height else { continue }
            let diff = TestImages.difference(ours.pixels, theirs.pixels)
            report.append("\(name): max \(diff.max) mean \(String(format: "%.5f", diff.mean))")
            XCTAssertEqual(diff.max, 0, "\(name) differs from MediaPipe's decode: max \(diff.max), mean \(diff.mean)")
        }
        print("decoder vs MediaPipe pixels:\n  " + report.joined(separator: "\n  "))
    }

    /// Decoding on a task's model threads (2 and 3 of them) gives the pixels of decoding on the
    /// calling thread, bit for bit, for every still image (224x224 to 3000x4000; 4:2:0, 4:2:2
    /// and 4:4:4; baseline and progressive).
    func testDecodingOnATasksThreadsGivesTheSamePixels() throws {
        let model = try SharedTestData.installedModel("hand_landmarker.task")
        for threadCount in [2, 3] {
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = model.path
            options.baseOptions.numThreads = threadCount
            let threads = try HandLandmarker(options: options).threads
            for url in try TestImages.stillImages() {
                let bytes = try Data(contentsOf: url)
                let alone = try ImageDecoder.decode(bytes)
                let shared = try ImageDecoder.decode(bytes, threads: threads)
                XCTAssertEqual(shared.pixels.width, alone.pixels.width, url.lastPathComponent)
                XCTAssertEqual(shared.pixels.height, alone.pixels.height, url.lastPathComponent)
                XCTAssertEqual(shared.pixels.format, alone.pixels.format, url.lastPathComponent)
                XCTAssertTrue(shared.pixels.bytes == alone.pixels.bytes, "\(url.lastPathComponent) on \(threadCount) threads")
            }
        }
    }

    func testSizesMatchReferenceJSON() throws {
        let reference = try SharedTestData.file("reference")
        for url in try TestImages.stillImages() {
            let name = url.deletingPathExtension().lastPathComponent
            let json = try JSONSerialization.jsonObject(
                with: Data(contentsOf: reference.appendingPathComponent("\(name).json"))) as? [String: Any]
            let decoded = try ImageDecoder.decode(contentsOfFile: url.path)
            XCTAssertEqual(decoded.pixels.width, json?["width"] as? Int, name)
            XCTAssertEqual(decoded.pixels.height, json?["height"] as? Int, name)
            XCTAssertEqual(decoded.pixels.format, .rgb8, name)
        }
    }

    /// Each of the 8 EXIF orientations is applied at load, and equals turning the plain decode.
    func testEXIFOrientationIsApplied() throws {
        let url = try SharedTestData.file("media/hand_thumb_up_03_samples.jpg")
        let original = [UInt8](try Data(contentsOf: url))
        let plain = try ImageDecoder.decode(original).pixels
        for orientation in EXIFOrientation.allCases {
            for bigEndian in [false, true] {
                let tagged = TestImages.withEXIFOrientation(original, orientation.rawValue, bigEndian: bigEndian)
                let decoded = try ImageDecoder.decode(tagged)
                XCTAssertEqual(decoded.exifOrientation, orientation)
                let expected = plain.reoriented(orientation)
                XCTAssertEqual(decoded.pixels.width, orientation.swapsDimensions ? plain.height : plain.width)
                XCTAssertEqual(decoded.pixels, expected, "orientation \(orientation)")
            }
        }
        // Rotating right then left is the identity; .right moves the bottom-left corner to the top-left.
        let right = plain.reoriented(.right)
        XCTAssertEqual(right.reoriented(.left), plain)
        XCTAssertEqual(right.pixel(x: 0, y: 0), plain.pixel(x: 0, y: plain.height - 1))
        XCTAssertEqual(right.pixel(x: right.width - 1, y: 0), plain.pixel(x: 0, y: 0))
        // Out-of-range orientation values are ignored.
        let bogus = try ImageDecoder.decode(TestImages.withEXIFOrientation(original, 9))
        XCTAssertEqual(bogus.exifOrientation, .up)
        XCTAssertEqual(bogus.pixels, plain)
    }

    func testPNGRoundTripIsLossless() throws {
        let rgb = TestImages.pattern(width: 37, height: 23)
        for format in [PixelFormat.rgb8, .rgba8, .gray8] {
            let image: PixelBuffer
            switch format {
            case .rgba8:
                image = try PixelBuffer(width: 37, height: 23, format: .rgba8, bytes: (0..<(37 * 23 * 4)).map { UInt8($0 % 251) })
            case .gray8:
                image = try PixelBuffer(width: 37, height: 23, format: .gray8, bytes: (0..<(37 * 23)).map { UInt8($0 % 256) })
            default:
                image = rgb
            }
            let decoded = try ImageDecoder.decode(try ImageEncoder.png(image))
            XCTAssertEqual(decoded.container, .png)
            XCTAssertEqual(decoded.pixels, image, "\(format)")
        }
    }

    func testJPEGEncodeThenDecodeIsClose() throws {
        let image = TestImages.pattern(width: 64, height: 48)
        let bytes = try ImageEncoder.jpeg(image, quality: 95)
        let decoded = try ImageDecoder.decode(bytes)
        XCTAssertEqual(decoded.container, .jpeg)
        XCTAssertEqual(decoded.pixels.width, 64)
        XCTAssertEqual(decoded.pixels.height, 48)
        XCTAssertLessThan(TestImages.difference(decoded.pixels, image).mean, 10) // sharp 8-pixel checks, 4:2:0 chroma
    }

    func testPaddedRowsAreHonoured() throws {
        let image = TestImages.pattern(width: 10, height: 6)
        var padded = [UInt8]()
        for y in 0..<6 {
            padded += image.bytes[(y * 30)..<((y + 1) * 30)]
            padded += [UInt8](repeating: 0xAB, count: 7)
        }
        let wrapped = try PixelBuffer(width: 10, height: 6, format: .rgb8, bytesPerRow: 37, bytes: padded)
        XCTAssertEqual(wrapped.packed(), image)
        XCTAssertEqual(try ImageDecoder.decode(try ImageEncoder.png(wrapped)).pixels, image)
    }
}
