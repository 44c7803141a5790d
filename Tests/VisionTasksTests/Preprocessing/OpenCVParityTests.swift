import Foundation
import XCTest

@testable import VisionTasks

/// Dev-loop parity check against OpenCV's classic warp (the one inside MediaPipe 1.2.2).
/// Needs a case file from `scripts/dev/make_warp_cases.py` (OpenCV <= 4.10) named by
/// `VISION_TASKS_WARP_CASES`; skipped without it (also under CI: the file is generated, not
/// shared test data).
final class OpenCVParityTests: XCTestCase {
    private struct CaseFile: Decodable {
        var opencv: String
        var cases: [Case]
    }

    private struct Case: Decodable {
        var width: Int
        var height: Int
        var pixels: String
        var roi: [Float]
        var outputWidth: Int
        var outputHeight: Int
        var border: String
        var inverseBits: [UInt64]
        var lapackInverseBits: [UInt64]
        var warped: String
    }

    func testMatricesAndPixelsMatchOpenCV() throws {
        guard let path = ProcessInfo.processInfo.environment["VISION_TASKS_WARP_CASES"], !path.isEmpty
        else {
            throw XCTSkip("set VISION_TASKS_WARP_CASES to a file from scripts/dev/make_warp_cases.py")
        }
        let file = try JSONDecoder().decode(CaseFile.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        var openBLASDifferences = 0, pixelMismatches = 0
        for (index, c) in file.cases.enumerated() {
            let roi = RotatedRect(
                centerX: c.roi[0], centerY: c.roi[1], width: c.roi[2], height: c.roi[3], rotation: c.roi[4])
            let inverse = try XCTUnwrap(
                PerspectiveTransform.cropMatrix(roi: roi, outputWidth: c.outputWidth, outputHeight: c.outputHeight))
            // MediaPipe's OpenCV solves with reference LAPACK; we must match that bit for bit.
            XCTAssertEqual(
                inverse.map(\.bitPattern), c.lapackInverseBits,
                "case \(index): matrix differs from the reference-LAPACK solution")
            // The PyPI OpenCV solves with OpenBLAS, whose kernels round differently in the last
            // bits; the pixels must still agree.
            if inverse.map(\.bitPattern) != c.inverseBits { openBLASDifferences += 1 }
            let pixels = try XCTUnwrap(Data(base64Encoded: c.pixels))
            let expected = try XCTUnwrap(Data(base64Encoded: c.warped))
            let options = ImageToTensorOptions(
                outputWidth: c.outputWidth, outputHeight: c.outputHeight, keepAspectRatio: false,
                borderMode: c.border == "zero" ? .zero : .replicate, rangeMin: 0, rangeMax: 255)
            var tensor = [Float](repeating: -1, count: c.outputWidth * c.outputHeight * 3)
            try pixels.withUnsafeBytes { raw in
                let image = try ImagePixels(
                    bytes: raw, width: c.width, height: c.height, bytesPerRow: c.width * 3)
                try tensor.withUnsafeMutableBufferPointer {
                    try ImageToTensor.warp(image, roi: roi, options: options, into: $0)
                }
            }
            let got = tensor.map { UInt8(exactly: $0) ?? 0 }
            if got != [UInt8](expected) {
                pixelMismatches += 1
                let differing = zip(got, expected).filter { $0 != $1 }.count
                XCTFail("case \(index): \(differing) of \(got.count) values differ from OpenCV")
            }
        }
        print(
            "OpenCV \(file.opencv) parity: \(file.cases.count) cases, \(pixelMismatches) pixel mismatches; matrices equal to reference LAPACK, \(openBLASDifferences) differ from OpenBLAS in the last bits")
    }
}
