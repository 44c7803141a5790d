import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksMLKit
import XCTest

/// MediaPipe's pose answers (`shared/testdata/reference`), just what these tests read.
struct ReferencePose: Decodable {
    struct Point: Decodable {
        var x: Double
        var y: Double
        var z: Double
        var visibility: Double?
        var presence: Double?
    }

    struct Poses: Decodable { var landmarks: [[Point]] }

    var width: Int
    var height: Int
    var pose: Poses
}

/// The ML Kit façade against MediaPipe's references, after converting ML Kit's pixel
/// coordinates back to MediaPipe's normalised ones, on MediaPipe's exact pixels.
final class PoseDetectorAccuracyTests: XCTestCase {
    static func referenceBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task").path
    }

    static func detector(_ mode: PoseDetectorMode) throws -> PoseDetector {
        let options = PoseDetectorOptions()
        options.detectorMode = mode
        options.modelAssetPath = try referenceBundle()
        return PoseDetector.poseDetector(options: options)
    }

    /// The ML Kit guide's loop on every reference image: the same person as MediaPipe's
    /// (at most one: ML Kit's rule), every landmark within 1e-3 of the image size, z within
    /// 5e-3 of the width, `inFrameLikelihood` = MediaPipe's presence within 0.01, and the
    /// guide's `inFrameLikelihood > 0.5` gate deciding as MediaPipe's presence does.
    ///
    /// The references were made with numPoses 2; the detector looks for one person, as a
    /// pose landmarker with numPoses 1 does (checked here). Where MediaPipe's second region
    /// is the only one that passes, the one-person search finds nobody: on one image of 26,
    /// a spurious "pose" on a coffee mug.
    func testGuideLoopMatchesMediaPipe() throws {
        let poseDetector = try Self.detector(.singleImage)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try Self.referenceBundle()
        options.numPoses = 1
        let onePerson = try PoseLandmarker(options: options)
        var worst = 0.0, worstZ = 0.0, sum = 0.0, count = 0, images = 0, gateDecisions = 0
        var countMismatches: [String] = []
        for item in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(item, as: ReferencePose.self)
            let mpImage = try MPImage(contentsOf: item.pixelsFile)
            let image = VisionImage(image: mpImage)
            image.orientation = .up
            let detectedPoses = try poseDetector.results(in: image)
            XCTAssertEqual(detectedPoses.count, try onePerson.detect(image: mpImage).landmarks.count, "\(item.name): people")
            if detectedPoses.count != min(1, reference.pose.landmarks.count) { countMismatches.append(item.name) }
            images += 1
            // The guide's code shape.
            for pose in detectedPoses {
                let width = Double(reference.width), height = Double(reference.height)
                let candidates = reference.pose.landmarks
                let ref = try XCTUnwrap(candidates.min { a, b in
                    Self.distance(pose, a, width, height) < Self.distance(pose, b, width, height)
                })
                XCTAssertEqual(pose.landmarks.count, 33)
                for landmark in pose.landmarks {
                    let position = landmark.position
                    let type = landmark.type
                    let r = ref[type.index]
                    let dx = abs(Double(position.x) / width - r.x), dy = abs(Double(position.y) / height - r.y)
                    let dz = abs(Double(position.z) / width - r.z)
                    XCTAssertLessThanOrEqual(max(dx, dy), 1e-3, "\(item.name) \(type): position")
                    XCTAssertLessThanOrEqual(dz, 5e-3, "\(item.name) \(type): z")
                    worstZ = max(worstZ, dz)
                    XCTAssertEqual(Double(landmark.inFrameLikelihood), r.presence ?? -1, accuracy: 0.01, "\(item.name) \(type)")
                    worst = max(worst, dx, dy)
                    sum += dx + dy
                    count += 2
                }
                let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
                XCTAssertEqual(leftAnkleLandmark.type, .leftAnkle)
                let referenceSaysInFrame = (ref[PoseLandmarkType.leftAnkle.index].presence ?? 0) > 0.5
                if leftAnkleLandmark.inFrameLikelihood > 0.5 {
                    let position = leftAnkleLandmark.position
                    XCTAssertTrue(referenceSaysInFrame, "\(item.name): left ankle in frame")
                    XCTAssertGreaterThan(position.y, 0)
                } else {
                    XCTAssertFalse(referenceSaysInFrame, "\(item.name): left ankle not in frame")
                }
                gateDecisions += 1
            }
        }
        XCTAssertGreaterThan(images, 20)
        XCTAssertGreaterThan(gateDecisions, 10)
        XCTAssertLessThanOrEqual(countMismatches.count, 1, "images where the person count differs from MediaPipe's: \(countMismatches)")
        print(String(
            format: "ML Kit façade vs MediaPipe (x/width, y/height after pixel conversion): %d images, %d poses, max %.3g, mean %.3g; z/width max %.3g; count differs on %@",
            images, gateDecisions, worst, sum / Double(max(count, 1)), worstZ, countMismatches.description))
    }

    static func distance(_ pose: Pose, _ reference: [ReferencePose.Point], _ width: Double, _ height: Double) -> Double {
        zip(pose.landmarks, reference).map { l, r in
            abs(Double(l.position.x) / width - r.x) + abs(Double(l.position.y) / height - r.y)
        }.reduce(0, +)
    }

    /// `.stream` tracks one person over the first frames of a video: a pose on every frame
    /// where MediaPipe found one, close to MediaPipe's (video mode, numPoses 2, so not
    /// smoothed: the bar is loose), with the frames' own timestamps.
    func testStreamModeFollowsAPersonThroughAVideo() throws {
        let video = try XCTUnwrap(try ReferenceMedia.videos().first { $0.name == "video_pose_squats" })
        struct Line: Decodable {
            var pose: ReferencePose.Poses
        }
        let references = try video.frames(as: Line.self)
        let poseDetector = try Self.detector(.stream)
        let reader = try VideoReader(path: video.mediaFile.path)
        var frames = 0, sum = 0.0, n = 0
        while let frame = try reader.nextFrame(), frames < 15 {
            let image = VisionImage(buffer: frame.image)
            image.timestampInMilliseconds = frame.timestampInMilliseconds
            let poses = try poseDetector.results(in: image)
            let reference = references[frames].pose.landmarks
            XCTAssertEqual(poses.count, min(1, reference.count), "frame \(frames)")
            if let pose = poses.first, let ref = reference.first {
                for (l, r) in zip(pose.landmarks, ref) where (r.visibility ?? 0) > 0.5 {
                    sum += hypot(Double(l.position.x) / Double(frame.image.width) - r.x, Double(l.position.y) / Double(frame.image.height) - r.y)
                    n += 1
                }
            }
            frames += 1
        }
        XCTAssertEqual(frames, 15)
        XCTAssertGreaterThan(n, 0)
        XCTAssertLessThan(sum / Double(max(n, 1)), 0.01, "mean distance of visible landmarks")
        // A frame that does not come after the previous one is an error, not a crash.
        let late = VisionImage(buffer: try MPImage(contentsOf: video.mediaFile.deletingLastPathComponent().appendingPathComponent("neg_banana.jpg")).pixelBuffer)
        late.timestampInMilliseconds = 0
        XCTAssertThrowsError(try poseDetector.results(in: late))
    }
}
