import Foundation
import XCTest

@testable import VisionTasks

final class ImageToTensorTests: XCTestCase {
    func testLetterboxTransform() throws {
        // A 640×480 image into the palm detector's 192×192: the region grows to 640×640,
        // padding 1/8 top and bottom.
        let t = try ImageToTensor.transform(imageWidth: 640, imageHeight: 480, region: nil, options: .palmDetection)
        XCTAssertEqual(t.roi, RotatedRect(centerX: 320, centerY: 240, width: 640, height: 640))
        XCTAssertEqual(t.padding, LetterboxPadding(left: 0, top: 0.125, right: 0, bottom: 0.125))
        XCTAssertEqual(t.matrix.values[0], 1)
        XCTAssertEqual(t.matrix.values[3], 0)
        XCTAssertEqual(t.matrix.values[5], 640.0 / 480.0, accuracy: 1e-7)
        XCTAssertEqual(t.matrix.values[7], -80.0 / 480.0, accuracy: 1e-7)
        // A portrait image pads left and right.
        let p = try ImageToTensor.transform(imageWidth: 300, imageHeight: 600, region: nil, options: .poseDetection)
        XCTAssertEqual(p.padding, LetterboxPadding(left: 0.25, top: 0, right: 0.25, bottom: 0))
        // Without keep-aspect-ratio the region is the rect itself.
        let rect = NormalizedRect(xCenter: 0.25, yCenter: 0.5, width: 0.5, height: 0.25, rotation: 0.3)
        let c = try ImageToTensor.transform(imageWidth: 200, imageHeight: 100, region: rect, options: .handLandmarks)
        XCTAssertEqual(c.roi, RotatedRect(centerX: 50, centerY: 50, width: 100, height: 25, rotation: 0.3))
        XCTAssertEqual(c.padding, .zero)
    }

    func testInvalidRegionsAreRejected() {
        var nan = NormalizedRect.fullImage
        nan.xCenter = .nan
        XCTAssertThrowsError(
            try ImageToTensor.transform(imageWidth: 10, imageHeight: 10, region: nan, options: .handLandmarks)
        ) { error in
            XCTAssertEqual(error as? TasksError, .invalidArgument("ROI contains NaN values."))
        }
        let empty = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0.5)
        XCTAssertThrowsError(
            try ImageToTensor.transform(imageWidth: 10, imageHeight: 10, region: empty, options: .palmDetection))
        XCTAssertThrowsError(
            try ImageToTensor.transform(imageWidth: 10, imageHeight: 10, region: empty, options: .handLandmarks))
    }

    func testIdentityCropCopiesPixelsIntoTheRange() throws {
        // A 4×3 image into a 4×3 tensor: the corners map onto each other, so every pixel is
        // read exactly and only the range conversion applies.
        let pixels: [UInt8] = (0..<36).map { UInt8($0 * 7) }
        var options = ImageToTensorOptions(
            outputWidth: 4, outputHeight: 3, keepAspectRatio: false, borderMode: .zero, rangeMin: 0, rangeMax: 1)
        let unit = try pixels.withUnsafeBytes { raw in
            try ImageToTensor.convert(
                ImagePixels(bytes: raw, width: 4, height: 3, bytesPerRow: 12), region: nil, options: options)
        }
        // MediaPipe multiplies by scale = 1/255 (it does not divide by 255).
        let unitScale: Float = (1.0 - 0.0) / 255.0
        XCTAssertEqual(unit.tensor, pixels.map { Float($0) * unitScale })
        options.rangeMin = -1
        let signed = try pixels.withUnsafeBytes { raw in
            try ImageToTensor.convert(
                ImagePixels(bytes: raw, width: 4, height: 3, bytesPerRow: 12), region: nil, options: options)
        }
        let scale: Float = 2.0 / 255.0
        XCTAssertEqual(signed.tensor, pixels.map { fmaf(Float($0), scale, -1) })
    }

    func testRGBAStrideAndLetterboxFill() throws {
        // A 2×1 RGBA image with a padded stride, letterboxed into 2×2: the top and bottom
        // halves read the zero border, blended with the image row in between.
        let rgba: [UInt8] = [200, 100, 50, 255, 200, 100, 50, 255, 9, 9, 9, 9]
        let options = ImageToTensorOptions(
            outputWidth: 2, outputHeight: 2, keepAspectRatio: true, borderMode: .zero, rangeMin: 0, rangeMax: 255)
        let result = try rgba.withUnsafeBytes { raw in
            try ImageToTensor.convert(
                ImagePixels(bytes: raw, width: 2, height: 1, bytesPerRow: 12, channels: 4), region: nil,
                options: options)
        }
        XCTAssertEqual(result.transform.padding, LetterboxPadding(left: 0, top: 0.25, right: 0, bottom: 0.25))
        // The 2×2 region is centred on the row (y = 0.5 ± 1): output row 0 reads source
        // y = −0.5 (half border, half row), row 1 reads y = 0.5 (half row, half border).
        XCTAssertEqual(result.tensor, [100, 50, 25, 100, 50, 25, 100, 50, 25, 100, 50, 25])
    }

    func testBadBuffersAreRejected() throws {
        let bytes = [UInt8](repeating: 0, count: 10)
        try bytes.withUnsafeBytes { raw in
            XCTAssertThrowsError(try ImagePixels(bytes: raw, width: 2, height: 2, bytesPerRow: 6))  // needs 12
            XCTAssertThrowsError(try ImagePixels(bytes: raw, width: 2, height: 1, bytesPerRow: 5))
            XCTAssertThrowsError(try ImagePixels(bytes: raw, width: 0, height: 1, bytesPerRow: 6))
            XCTAssertThrowsError(try ImagePixels(bytes: raw, width: 1, height: 1, bytesPerRow: 3, channels: 2))
            XCTAssertNoThrow(try ImagePixels(bytes: raw, width: 3, height: 1, bytesPerRow: 9))
        }
        let pixels = [UInt8](repeating: 0, count: 12)
        try pixels.withUnsafeBytes { raw in
            let image = try ImagePixels(bytes: raw, width: 2, height: 2, bytesPerRow: 6)
            var small = [Float](repeating: 0, count: 5)
            try small.withUnsafeMutableBufferPointer { out in
                XCTAssertThrowsError(
                    try ImageToTensor.convert(image, region: nil, options: .palmDetection, into: out))
            }
        }
    }

    func testRangeFromNormalisationMetadata() {
        XCTAssertTrue(ImageToTensorOptions.range(mean: 127.5, std: 127.5) == (-1, 1))
        XCTAssertTrue(ImageToTensorOptions.range(mean: 0, std: 255) == (0, 1))
        XCTAssertEqual(ImageToTensorOptions.poseDetection.valueTransform.scale, 2.0 / 255.0)
        XCTAssertEqual(ImageToTensorOptions.poseDetection.valueTransform.offset, -1)
    }

    func testPerspectiveTransformOfAnUnrotatedCrop() throws {
        // A 100×80 crop centred at (60, 50) into a 50×40 tensor: destination (x, y) reads
        // source (2x + 10, 2y + 10).
        let roi = RotatedRect(centerX: 60, centerY: 50, width: 100, height: 80)
        let m = try XCTUnwrap(PerspectiveTransform.cropMatrix(roi: roi, outputWidth: 50, outputHeight: 40))
        XCTAssertEqual(m[0], 2, accuracy: 1e-12)
        XCTAssertEqual(m[2], 10, accuracy: 1e-12)
        XCTAssertEqual(m[4], 2, accuracy: 1e-12)
        XCTAssertEqual(m[5], 10, accuracy: 1e-12)
        XCTAssertEqual(m[8], 1, accuracy: 1e-12)
        XCTAssertEqual(abs(m[1]) + abs(m[3]) + abs(m[6]) + abs(m[7]), 0, accuracy: 1e-12)
        let corners = PerspectiveTransform.boxPoints(
            centerX: 60, centerY: 50, width: 100, height: 80, angleDegrees: 0)
        XCTAssertEqual(corners.map(\.x), [10, 10, 110, 110])
        XCTAssertEqual(corners.map(\.y), [90, 10, 10, 90])
    }

    func testPerspectiveMatricesMatchReferenceLAPACK() throws {
        // Inverse matrices as reference LAPACK's dgesv and OpenCV's 3×3 inverse produce them
        // (the values MediaPipe's preprocessing evaluates), recorded from
        // scripts/dev/make_warp_cases.py's emulation, which reproduces MediaPipe's landmarks.
        // Case 1: a rotated crop; case 2: a letterbox whose coordinates hit exact 1/64 ties.
        let rotated = try XCTUnwrap(
            PerspectiveTransform.cropMatrix(
                roi: RotatedRect(centerX: 40.5, centerY: 33.25, width: 57.125, height: 41.75, rotation: 0.7),
                outputWidth: 224, outputHeight: 224))
        let letterbox = try XCTUnwrap(
            PerspectiveTransform.cropMatrix(
                roi: RotatedRect(centerX: 49.5, centerY: 100.5, width: 201, height: 201),
                outputWidth: 192, outputHeight: 192))
        XCTAssertEqual(rotated.map(\.bitPattern), Self.rotatedBits)
        XCTAssertEqual(letterbox.map(\.bitPattern), Self.letterboxBits)
    }

    static let rotatedBits: [UInt64] = [
        0x3fc8_f775_6d0a_afce, 0xbfbe_bd06_bbba_83b6, 0x4040_0d16_133a_f2b0,
        0x3fc5_0773_6716_2f53, 0x3fc2_3f38_1936_6c21, 0xbff1_dd61_f1c9_91c3,
        0xbddd_5a7c_6700_499f, 0x3df6_4488_c21a_c3d2, 0x3fef_ffff_e68a_b7df,
    ]
    /// 201/192 = 1.046875 and −51 come out one ulp off; that decides the rounding of every
    /// odd column and row.
    static let letterboxBits: [UInt64] = [
        0x3ff0_c000_0000_0001, 0, 0xc049_8000_0000_0001,
        0, 0x3ff0_c000_0000_0000, 0,
        0, 0, 0x3ff0_0000_0000_0000,
    ]
}

import MediaIO

final class PixelBufferBridgeTests: XCTestCase {
    func testPixelBuffersAreViewedWithTheirStride() throws {
        let rgb = try PixelBuffer(width: 2, height: 1, format: .rgb8)
        let count = try ImagePixels.withPixels(of: rgb) { view -> Int in
            XCTAssertEqual(view.channels, 3)
            XCTAssertEqual(view.width, 2)
            return view.bytes.count
        }
        XCTAssertGreaterThanOrEqual(count, 6)
        let gray = try PixelBuffer(width: 2, height: 1, format: .gray8)
        XCTAssertThrowsError(try ImagePixels.withPixels(of: gray) { _ in () })
    }
}
