import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksMLKit
import XCTest

/// Whether ML Kit's `left…` / `right…` landmarks are the person's own sides (docs/mlkit.md,
/// "Left and right"), recomputed from `media/SOURCES.md` (which hand each photo shows, judged
/// by eye on the unmirrored photo) and MediaPipe's reference hands, with the detector run on
/// MediaPipe's exact pixels. Prints one row per photo whose side SOURCES.md names.
final class BodySideEvidenceTests: XCTestCase {
    /// What these tests read of MediaPipe's reference: the hands' wrists and their labels.
    struct ReferenceHands: Decodable {
        struct Point: Decodable { var x: Double, y: Double }
        struct Category: Decodable { var categoryName: String? }
        struct Hands: Decodable {
            var landmarks: [[Point]]
            var handedness: [[Category]]
        }

        var width: Int
        var height: Int
        var gesture: Hands
    }

    /// A wrist counts as lying on the hand when it is this close (pixels) to the hand model's wrist.
    static let wristRadius: CGFloat = 15

    /// Two kinds of evidence on the photos whose hand side SOURCES.md names:
    /// - the person faces the camera there (SOURCES.md's "hand at image right (subject's LEFT
    ///   hand)"), so their own left shoulder is on the image's right: `leftShoulder.x >
    ///   rightShoulder.x` on every such photo with a pose;
    /// - the wrist landmark nearest to MediaPipe's hand (when within 15 px) has the side
    ///   SOURCES.md names on all but the photo docs/apple-vision.md discusses
    ///   (`hand_thumb_up_left_01`, where both models say right and SOURCES.md says left).
    func testLeftAndRightAreThePersonsOwnSides() throws {
        let options = PoseDetectorOptions()
        options.detectorMode = .singleImage
        options.modelAssetPath = try PoseDetectorAccuracyTests.referenceBundle()
        let poseDetector = PoseDetector.poseDetector(options: options)
        let images = Dictionary(uniqueKeysWithValues: try ReferenceMedia.images().map { ($0.name, $0) })
        var lines = ["ML Kit sides (media/SOURCES.md, MediaPipe's hand, PoseDetector on MediaPipe's pixels):",
                     "photo | SOURCES.md | leftShoulder.x - rightShoulder.x | leftWrist | rightWrist (px from the hand's wrist) | nearest within 15 px"]
        var poses = 0, shouldersAsFacing = 0, nearest: [(String, NamedHandSide.Side, NamedHandSide.Side)] = []
        for named in try NamedHandSide.all() {
            guard let item = images[named.name] else { continue }
            let reference = try ReferenceMedia.reference(item, as: ReferenceHands.self)
            let image = VisionImage(image: try MPImage(contentsOf: item.pixelsFile))
            guard let pose = try poseDetector.results(in: image).first else {
                lines.append("\(named.name) | \(named.words) | no pose")
                continue
            }
            poses += 1
            let shoulders = pose.landmark(ofType: .leftShoulder).position.x - pose.landmark(ofType: .rightShoulder).position.x
            if shoulders > 0 { shouldersAsFacing += 1 }
            var columns = [named.name, named.words, String(format: "%+.0f px", Double(shoulders))]
            if let hand = reference.gesture.landmarks.first {
                let wrist = CGPoint(x: hand[0].x * Double(reference.width), y: hand[0].y * Double(reference.height))
                func distance(_ type: PoseLandmarkType) -> CGFloat {
                    let p = pose.landmark(ofType: type).position
                    return hypot(p.x - wrist.x, p.y - wrist.y)
                }
                let l = distance(.leftWrist), r = distance(.rightWrist)
                let side: NamedHandSide.Side? = min(l, r) <= Self.wristRadius ? (l <= r ? .left : .right) : nil
                if let side { nearest.append((named.name, named.side, side)) }
                columns += [String(format: "%.1f", Double(l)), String(format: "%.1f", Double(r)), side?.rawValue ?? "-"]
            } else {
                columns += ["no hand", "", "-"]
            }
            lines.append(columns.joined(separator: " | "))
        }
        let agreeing = nearest.filter { $0.1 == $0.2 }
        lines.append("left shoulder on the image's right (a person facing the camera): \(shouldersAsFacing) of \(poses) photos with a pose")
        lines.append("nearest wrist within 15 px has the named side: \(agreeing.count) of \(nearest.count); differs on \(nearest.filter { $0.1 != $0.2 }.map(\.0))")
        print(lines.joined(separator: "\n"))

        XCTAssertGreaterThanOrEqual(poses, 6)
        XCTAssertEqual(shouldersAsFacing, poses, "left shoulder on the image's right")
        XCTAssertGreaterThanOrEqual(nearest.count, 5)
        XCTAssertEqual(nearest.filter { $0.1 != $0.2 }.map(\.0), ["hand_thumb_up_left_01"])
    }
}
