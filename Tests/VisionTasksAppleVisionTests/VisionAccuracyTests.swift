import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import XCTest

/// The Vision façade against MediaPipe's references on MediaPipe's exact pixels, after
/// converting Vision's coordinates back (the tutorial's `1 - y` flip) and mapping BlazePose's
/// 33 landmarks to Vision's 19 joints.
final class VisionAccuracyTests: XCTestCase {
    /// The hand-pose tutorial's code shape on every reference image: the same hands as
    /// MediaPipe's, every joint within 1e-3 of the image size, chirality = MediaPipe's
    /// handedness, and the tutorial's `confidence > 0.3` gate passing inside the image.
    func testHandTutorialCodeMatchesMediaPipe() throws {
        let handPoseRequest = try VisionFixture.handRequest()
        var worst = 0.0, sum = 0.0, count = 0, hands = 0
        for item in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(item, as: VisionReference.self)
            let pixels = try MPImage(contentsOf: item.pixelsFile).pixelBuffer
            let handler = VNImageRequestHandler(cvPixelBuffer: pixels, orientation: .up, options: [:])
            try handler.perform([handPoseRequest])
            let observations = try XCTUnwrap(handPoseRequest.results, item.name)
            XCTAssertEqual(observations.count, reference.gesture.landmarks.count, "\(item.name): hands")
            var unpaired = Array(reference.gesture.landmarks.indices)
            for observation in observations {
                // The tutorial's shape.
                let thumbPoints = try observation.recognizedPoints(.thumb)
                let wristPoints = try observation.recognizedPoints(.all)
                guard let thumbTipPoint = thumbPoints[.thumbTip], let wristPoint = wristPoints[.wrist] else {
                    XCTFail("\(item.name): thumb tip or wrist missing")
                    continue
                }
                let thumbTip = CGPoint(x: thumbTipPoint.location.x, y: 1 - thumbTipPoint.location.y)
                let wrist = CGPoint(x: wristPoint.location.x, y: 1 - wristPoint.location.y)
                // Pair with MediaPipe's hand whose wrist is nearest.
                let r = try XCTUnwrap(unpaired.min { a, b in
                    Self.gap(wrist, reference.gesture.landmarks[a][0]) < Self.gap(wrist, reference.gesture.landmarks[b][0])
                })
                unpaired.removeAll { $0 == r }
                let ref = reference.gesture.landmarks[r]
                XCTAssertLessThanOrEqual(Self.gap(thumbTip, ref[4]), 1e-3, "\(item.name): thumb tip")
                for (index, name) in VisionFixture.handJoints.enumerated() {
                    let point = try observation.recognizedPoint(name)
                    XCTAssertEqual(point.identifier, name.rawValue)
                    let d = Self.gap(CGPoint(x: point.x, y: 1 - point.y), ref[index])
                    XCTAssertLessThanOrEqual(d, 1e-3, "\(item.name) \(name)")
                    worst = max(worst, d)
                    sum += d
                    count += 1
                    let inside = (0...1).contains(point.x) && (0...1).contains(point.y)
                    XCTAssertEqual(point.confidence > 0.3, inside, "\(item.name) \(name): confidence gate")
                }
                let label = reference.gesture.handedness[r].first?.categoryName
                XCTAssertEqual(observation.chirality, label == "Left" ? .left : .right, "\(item.name): chirality")
                XCTAssertGreaterThan(observation.confidence, 0.5)
                hands += 1
            }
            let areas = observations.map { o -> Double in
                let xs = o.availableJointNames.compactMap { try? o.recognizedPoint($0).x }
                let ys = o.availableJointNames.compactMap { try? o.recognizedPoint($0).y }
                return ((xs.max() ?? 0) - (xs.min() ?? 0)) * ((ys.max() ?? 0) - (ys.min() ?? 0))
            }
            XCTAssertEqual(areas, areas.sorted(by: >), "\(item.name): largest hand first")
        }
        XCTAssertGreaterThan(hands, 15)
        print(String(format: "Vision hand façade vs MediaPipe (per-axis max |dx|,|dy| after 1 - y): %d hands, max %.3g, mean %.3g", hands, worst, sum / Double(max(count, 1))))
    }

    /// Largest of |dx| and |dy| between a top-left-origin point and a reference landmark.
    static func gap(_ p: CGPoint, _ r: VisionReference.Point) -> Double {
        max(abs(Double(p.x) - r.x), abs(Double(p.y) - r.y))
    }

    /// The body request on every reference image: the same people, Vision's 19 joints at
    /// MediaPipe's landmarks (neck and root at the midpoints) within 1e-3 of the image size,
    /// confidence = min(visibility, presence) inside the image and 0 outside.
    func testBodyJointsMatchMediaPipe() throws {
        let request = try VisionFixture.bodyRequest()
        var worst = 0.0, sum = 0.0, count = 0, bodies = 0
        for item in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(item, as: VisionReference.self)
            let handler = VNImageRequestHandler(cvPixelBuffer: try MPImage(contentsOf: item.pixelsFile).pixelBuffer)
            try handler.perform([request])
            let observations = try XCTUnwrap(request.results, item.name)
            XCTAssertEqual(observations.count, reference.pose.landmarks.count, "\(item.name): people")
            XCTAssertEqual(observations.count, reference.pose.landmarks.count)
            var unpaired = Array(reference.pose.landmarks.indices)
            for observation in observations {
                let expected = unpaired.map { r in
                    (r, VisionFixture.bodyJoints.map { name, indices -> (CGPoint, Double) in
                        let points = indices.map { reference.pose.landmarks[r][$0] }
                        let x = points.map(\.x).reduce(0, +) / Double(points.count)
                        let y = points.map(\.y).reduce(0, +) / Double(points.count)
                        let c = points.map { min($0.visibility ?? 0, $0.presence ?? 0) }.min() ?? 0
                        return (CGPoint(x: x, y: 1 - y), c)
                    })
                }
                let all = try observation.recognizedPoints(.all)
                XCTAssertEqual(all.count, 19)
                func distance(_ joints: [(CGPoint, Double)]) -> Double {
                    zip(VisionFixture.bodyJoints, joints).map { j, e in
                        guard let p = all[j.0] else { return 1 }
                        return max(abs(p.location.x - e.0.x), abs(p.location.y - e.0.y))
                    }.reduce(0, +)
                }
                let (r, joints) = try XCTUnwrap(expected.min { distance($0.1) < distance($1.1) })
                unpaired.removeAll { $0 == r }
                for ((name, _), (location, confidence)) in zip(VisionFixture.bodyJoints, joints) {
                    let point = try observation.recognizedPoint(name)
                    let d = max(abs(point.location.x - location.x), abs(point.location.y - location.y))
                    XCTAssertLessThanOrEqual(d, 1e-3, "\(item.name) \(name)")
                    worst = max(worst, Double(d))
                    sum += Double(d)
                    count += 1
                    let inside = (0...1).contains(point.x) && (0...1).contains(point.y)
                    XCTAssertEqual(Double(point.confidence), inside ? confidence : 0, accuracy: 0.01, "\(item.name) \(name): confidence")
                }
                bodies += 1
            }
        }
        XCTAssertGreaterThan(bodies, 15)
        print(String(format: "Vision body façade vs MediaPipe (19 joints, per-axis max after 1 - y): %d bodies, max %.3g, mean %.3g", bodies, worst, sum / Double(max(count, 1))))
    }
}
