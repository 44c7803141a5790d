import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import XCTest

/// MediaPipe's answers (`shared/testdata/reference`), just what these tests read.
struct VisionReference: Decodable {
    struct Point: Decodable {
        var x: Double
        var y: Double
        var visibility: Double?
        var presence: Double?
    }

    struct Category: Decodable { var categoryName: String? }

    struct Hands: Decodable {
        var landmarks: [[Point]]
        var handedness: [[Category]]
    }

    struct Poses: Decodable { var landmarks: [[Point]] }

    var width: Int
    var height: Int
    var gesture: Hands
    var pose: Poses
}

/// Shared set-up of the Vision façade's tests.
enum VisionFixture {
    /// The hand landmarker MediaPipe's references were made with (inside the reference
    /// gesture recognizer bundle).
    static func handBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
    }

    static func poseBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task").path
    }

    static func handRequest(maximumHandCount: Int = 2) throws -> VNDetectHumanHandPoseRequest {
        let request = VNDetectHumanHandPoseRequest()
        request.maximumHandCount = maximumHandCount
        request.modelAssetPath = try handBundle()
        return request
    }

    static func bodyRequest() throws -> VNDetectHumanBodyPoseRequest {
        let request = VNDetectHumanBodyPoseRequest()
        request.modelAssetPath = try poseBundle()
        return request
    }

    /// MediaPipe's exact pixels of a reference image.
    static func pixels(_ name: String) throws -> (PixelBuffer, VisionReference) {
        let item = try XCTUnwrap(try ReferenceMedia.images().first { $0.name == name }, name)
        return (try MPImage(contentsOf: item.pixelsFile).pixelBuffer, try ReferenceMedia.reference(item, as: VisionReference.self))
    }

    /// Vision's 19 body joints from MediaPipe's 33 reference landmarks (top-left origin,
    /// normalised): the façade's documented mapping, written out independently.
    static let bodyJoints: [(VNHumanBodyPoseObservation.JointName, [Int])] = [
        (.nose, [0]), (.leftEye, [2]), (.rightEye, [5]), (.leftEar, [7]), (.rightEar, [8]),
        (.neck, [11, 12]), (.leftShoulder, [11]), (.rightShoulder, [12]), (.leftElbow, [13]), (.rightElbow, [14]),
        (.leftWrist, [15]), (.rightWrist, [16]), (.leftHip, [23]), (.rightHip, [24]), (.root, [23, 24]),
        (.leftKnee, [25]), (.rightKnee, [26]), (.leftAnkle, [27]), (.rightAnkle, [28]),
    ]

    static let handJoints: [VNHumanHandPoseObservation.JointName] = [
        .wrist, .thumbCMC, .thumbMP, .thumbIP, .thumbTip, .indexMCP, .indexPIP, .indexDIP, .indexTip,
        .middleMCP, .middlePIP, .middleDIP, .middleTip, .ringMCP, .ringPIP, .ringDIP, .ringTip,
        .littleMCP, .littlePIP, .littleDIP, .littleTip,
    ]
}
