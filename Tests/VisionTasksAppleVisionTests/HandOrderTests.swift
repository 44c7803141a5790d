import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import XCTest

/// Vision's rule for `maximumHandCount`: hands are ordered largest first and only the largest
/// `maximumHandCount` are reported.
final class HandOrderTests: XCTestCase {
    /// `hands_two_open_palm_and_hanging` (two hands cut out on white, of about the same size)
    /// with one half of the picture shrunk by 0.75 … 0.9, each half in turn: two hands of
    /// clearly different sizes. With `maximumHandCount` 2 both come back, the larger first; with
    /// 1, exactly one: the larger, with the same joints. MediaPipe's own rule (`numHands` 1
    /// keeps the palm detector's best score) keeps the smaller hand on some of these pictures;
    /// the test asserts there is at least one, so it tells the two rules apart.
    func testMaximumHandCountKeepsTheLargestHand() throws {
        let (photo, reference) = try VisionFixture.pixels("hands_two_open_palm_and_hanging")
        XCTAssertEqual(reference.gesture.landmarks.count, 2)
        let rgb = photo.convertedToRGB8().packed()
        let two = try VisionFixture.handRequest(maximumHandCount: 2)
        let one = try VisionFixture.handRequest(maximumHandCount: 1)
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try VisionFixture.handBundle()
        options.numHands = 1
        let mediaPipeRule = try HandLandmarker(options: options)
        var palmDetectorKeptTheSmaller: [String] = []
        for shrunkHalf in 0..<2 {
            for scale in [0.75, 0.8, 0.85, 0.9] {
                let name = "\(shrunkHalf == 0 ? "left" : "right") half × \(scale)"
                let image = try Self.shrinking(half: shrunkHalf, by: scale, of: rgb)
                try VNImageRequestHandler(cvPixelBuffer: image).perform([two, one])
                let both = try XCTUnwrap(two.results, name)
                XCTAssertEqual(both.count, 2, "\(name): both hands")
                guard both.count == 2 else { continue }
                let areas = both.map { Self.area($0, image) }
                XCTAssertGreaterThan(areas[0], areas[1], "\(name): largest first")
                let larger = try both[0].recognizedPoint(.wrist).x, smaller = try both[1].recognizedPoint(.wrist).x
                XCTAssertEqual(larger < 0.5, shrunkHalf == 1, "\(name): the larger hand is in the half kept at full size")

                let single = try XCTUnwrap(one.results, name)
                XCTAssertEqual(single.count, 1, "\(name): maximumHandCount 1")
                for joint in both[0].availableJointNames {
                    XCTAssertEqual(
                        try single.first?.recognizedPoint(joint).location, try both[0].recognizedPoint(joint).location, "\(name) \(joint)")
                }

                let kept = try mediaPipeRule.detect(image: MPImage(pixelBuffer: image)).landmarks
                let keptX = try Double(XCTUnwrap(kept.first, name)[0].x)
                let keptTheSmaller = abs(keptX - smaller) < abs(keptX - larger)
                if keptTheSmaller { palmDetectorKeptTheSmaller.append(name) }
                print(String(
                    format: "%@: hand areas %.0f and %.0f px²; maximumHandCount 1 reports the %.0f px² hand, MediaPipe's numHands 1 keeps the %@ one",
                    name, areas[0], areas[1], Self.area(single[0], image), keptTheSmaller ? "smaller" : "larger"))
            }
        }
        print("the palm detector's best score is the smaller hand on: \(palmDetectorKeptTheSmaller)")
        XCTAssertFalse(palmDetectorKeptTheSmaller.isEmpty, "a picture where the two rules part")
    }

    /// The pixel area of the bounding box of an observation's joints.
    static func area(_ observation: VNHumanHandPoseObservation, _ image: PixelBuffer) -> Double {
        let points = observation.availableJointNames.compactMap { try? observation.recognizedPoint($0) }
        guard let minX = points.map(\.x).min(), let maxX = points.map(\.x).max(),
            let minY = points.map(\.y).min(), let maxY = points.map(\.y).max()
        else { return 0 }
        return (maxX - minX) * Double(image.width) * (maxY - minY) * Double(image.height)
    }

    /// `rgb` (packed RGB8) with its left (`half` 0) or right (1) half replaced by white and
    /// that half's content, scaled by `scale` (bilinear, pixel centres aligned), in its middle.
    static func shrinking(half: Int, by scale: Double, of rgb: PixelBuffer) throws -> PixelBuffer {
        let width = rgb.width, height = rgb.height, halfWidth = width / 2, x0 = half * halfWidth
        var bytes = rgb.bytes
        for y in 0..<height {
            for x in x0..<(x0 + halfWidth) {
                for c in 0..<3 { bytes[(y * width + x) * 3 + c] = 255 }
            }
        }
        let smallWidth = Int(Double(halfWidth) * scale), smallHeight = Int(Double(height) * scale)
        let left = x0 + (halfWidth - smallWidth) / 2, top = (height - smallHeight) / 2
        func source(_ x: Int, _ y: Int, _ c: Int) -> Double {
            Double(rgb.bytes[(min(max(y, 0), height - 1) * width + x0 + min(max(x, 0), halfWidth - 1)) * 3 + c])
        }
        for y in 0..<smallHeight {
            let sy = (Double(y) + 0.5) / scale - 0.5, y0 = Int(sy.rounded(.down)), fy = sy - Double(y0)
            for x in 0..<smallWidth {
                let sx = (Double(x) + 0.5) / scale - 0.5, xa = Int(sx.rounded(.down)), fx = sx - Double(xa)
                for c in 0..<3 {
                    let upper = source(xa, y0, c) * (1 - fx) + source(xa + 1, y0, c) * fx
                    let lower = source(xa, y0 + 1, c) * (1 - fx) + source(xa + 1, y0 + 1, c) * fx
                    bytes[((top + y) * width + left + x) * 3 + c] = UInt8((upper * (1 - fy) + lower * fy).rounded())
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }
}
