import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import VisionTasksAppleVisionMedia
import XCTest

/// The Vision façade's API: the eight orientations, sequences, file handlers, errors.
final class VisionRequestTests: XCTestCase {
    /// The EXIF orientation that undoes `o` (quarter turns swap; the others undo themselves).
    static func inverse(_ o: CGImagePropertyOrientation) -> CGImagePropertyOrientation {
        switch o {
        case .left: return .right
        case .right: return .left
        default: return o
        }
    }

    static func exif(_ o: CGImagePropertyOrientation) -> EXIFOrientation {
        EXIFOrientation(rawValue: Int(o.rawValue)) ?? .up
    }

    static let mirrored: Set<CGImagePropertyOrientation> = [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored]

    /// For each of the eight orientations, the photo stored turned (or mirrored) and given
    /// with that orientation yields the upright photo's hand joints and body joints. A
    /// mirrored orientation means the stored pixels are the camera's true view and the
    /// upright picture its mirror: chirality and body sides are the person's real ones, so
    /// they swap relative to the upright photo read as a true view.
    func testAllEightOrientationsGiveTheUprightJoints() throws {
        let (upright, _) = try VisionFixture.pixels("hand_thumb_down_03_across_body")
        let hands = try VisionFixture.handRequest()
        let bodies = try VisionFixture.bodyRequest()
        try VNImageRequestHandler(cvPixelBuffer: upright).perform([hands, bodies])
        let hand = try XCTUnwrap(hands.results?.first)
        let body = try XCTUnwrap(bodies.results?.first)
        XCTAssertEqual(hand.chirality, .right)
        for orientation in CGImagePropertyOrientation.allCases {
            let stored = upright.reoriented(Self.exif(Self.inverse(orientation)))
            XCTAssertEqual(stored.reoriented(Self.exif(orientation)).packed(), upright.packed(), "\(orientation): setup")
            try VNImageRequestHandler(cvPixelBuffer: stored, orientation: orientation, options: [:]).perform([hands, bodies])
            let h = try XCTUnwrap(hands.results?.first, "\(orientation)")
            let b = try XCTUnwrap(bodies.results?.first, "\(orientation)")
            let isMirrored = Self.mirrored.contains(orientation)
            XCTAssertEqual(h.chirality, isMirrored ? .left : .right, "\(orientation): chirality")
            var worst = 0.0
            for name in h.availableJointNames {
                let got = try h.recognizedPoint(name), want = try hand.recognizedPoint(name)
                worst = max(worst, abs(got.x - want.x), abs(got.y - want.y))
                XCTAssertEqual(got.confidence, want.confidence, "\(orientation) \(name)")
            }
            for name in b.availableJointNames {
                let got = try b.recognizedPoint(name)
                let want = try body.recognizedPoint(isMirrored ? Self.opposite(name) : name)
                worst = max(worst, abs(got.x - want.x), abs(got.y - want.y))
            }
            XCTAssertLessThanOrEqual(worst, 1e-3, "\(orientation)")
            print("Vision orientation \(orientation): largest difference from upright \(worst) (normalised), chirality \(h.chirality)")
        }
    }

    static func opposite(_ name: VNHumanBodyPoseObservation.JointName) -> VNHumanBodyPoseObservation.JointName {
        let key = name.rawValue.rawValue
        let swapped =
            key.hasPrefix("left_") ? "right_" + key.dropFirst(5)
            : key.hasPrefix("right_") ? "left_" + key.dropFirst(6) : key
        return VNHumanBodyPoseObservation.JointName(rawValue: VNRecognizedPointKey(rawValue: swapped))
    }

    /// A sequence handler tracks hands over the frames of a video (MediaPipe's video mode):
    /// the same hand count as MediaPipe's video-mode reference on the first 40 frames, joints
    /// close to it; a frame time that goes back is an error.
    func testSequenceHandlerTracksHandsThroughAVideo() throws {
        let video = try XCTUnwrap(try ReferenceMedia.videos().first { $0.name == "video_hand_samples_test" })
        let references = try video.frames(as: VideoLine.self)
        let request = try VisionFixture.handRequest()
        let sequenceHandler = VNSequenceRequestHandler()
        let reader = try VideoReader(path: video.mediaFile.path)
        var frames = 0, sameCount = 0, sum = 0.0, n = 0
        var last: VideoFrame?
        while let frame = try reader.nextFrame(), frames < 40 {
            try sequenceHandler.perform(
                [request], on: frame.image, orientation: .up, timestampInMilliseconds: frame.timestampInMilliseconds)
            let observations = try XCTUnwrap(request.results)
            let reference = references[frames].gesture.landmarks
            if observations.count == reference.count { sameCount += 1 }
            for observation in observations {
                let wrist = try observation.recognizedPoint(.wrist)
                if let ref = reference.min(by: { abs($0[0].x - wrist.x) < abs($1[0].x - wrist.x) }) {
                    sum += max(abs(wrist.x - ref[0].x), abs(1 - wrist.y - ref[0].y))
                    n += 1
                }
            }
            frames += 1
            last = frame
        }
        print("Vision sequence: \(sameCount)/\(frames) frames with MediaPipe's hand count, wrist mean \(sum / Double(max(n, 1)))")
        XCTAssertEqual(frames, 40)
        XCTAssertGreaterThanOrEqual(sameCount, 38)
        XCTAssertLessThan(sum / Double(max(n, 1)), 0.01)
        let frame = try XCTUnwrap(last)
        XCTAssertThrowsError(try sequenceHandler.perform([request], on: frame.image, orientation: .up, timestampInMilliseconds: 0)) {
            XCTAssertEqual(($0 as? VNError)?.code, .invalidArgument)
        }
        // Without timestamps the clock times the frames.
        try VNSequenceRequestHandler().perform([request], on: frame.image)
        XCTAssertNotNil(request.results)
    }

    struct VideoLine: Decodable {
        var gesture: VisionReference.Hands
    }

    /// Files and encoded bytes through `VisionTasksAppleVisionMedia`: a JPEG gives the same
    /// joints as its decoded pixels; a missing file and garbage bytes are
    /// `VNError(.invalidImage)` from `perform`, and `results` stays nil.
    func testFileAndDataHandlers() throws {
        let file = try SharedTestData.file("media/hand_victory_right_01.jpg")
        let request = try VisionFixture.handRequest()
        try VNImageRequestHandler(url: file, orientation: .up, options: [:]).perform([request])
        let fromFile = try XCTUnwrap(request.results?.first)
        try VNImageRequestHandler(data: try Data(contentsOf: file)).perform([request])
        let fromData = try XCTUnwrap(request.results?.first)
        let pixels = try MPImage(contentsOf: file).pixelBuffer
        try VNImageRequestHandler(cvPixelBuffer: pixels).perform([request])
        let fromPixels = try XCTUnwrap(request.results?.first)
        XCTAssertEqual(try fromFile.recognizedPoint(.indexTip).location, try fromPixels.recognizedPoint(.indexTip).location)
        XCTAssertEqual(try fromData.recognizedPoint(.indexTip).location, try fromPixels.recognizedPoint(.indexTip).location)

        for handler in [
            VNImageRequestHandler(url: URL(fileURLWithPath: "/nonexistent/photo.jpg")),
            VNImageRequestHandler(data: Data("not an image".utf8)),
            VNImageRequestHandler(data: try Data(contentsOf: file).prefix(300)),
        ] {
            XCTAssertThrowsError(try handler.perform([request])) { error in
                XCTAssertEqual((error as? VNError)?.code, .invalidImage, "\(error)")
                XCTAssertEqual((error as NSError).domain, VNErrorDomain)
            }
            XCTAssertNil(request.results)
        }
    }

    /// Unknown joint and group names, a bad revision, a bad hand count and a missing model are
    /// thrown as Vision throws them, never a crash; the completion handler sees the error too.
    func testErrorsAreThrownAsVisionThrowsThem() throws {
        let (pixels, _) = try VisionFixture.pixels("hand_victory_right_01")
        let request = try VisionFixture.handRequest()
        try VNImageRequestHandler(cvPixelBuffer: pixels).perform([request])
        let observation = try XCTUnwrap(request.results?.first)
        let unknown = VNHumanHandPoseObservation.JointName(rawValue: VNRecognizedPointKey(rawValue: "no_such_joint"))
        XCTAssertThrowsError(try observation.recognizedPoint(unknown)) { XCTAssertEqual(($0 as? VNError)?.code, .invalidArgument) }
        let bodyKey = VNHumanBodyPoseObservation.JointsGroupName.leftArm.rawValue
        XCTAssertThrowsError(try observation.recognizedPoints(VNHumanHandPoseObservation.JointsGroupName(rawValue: bodyKey))) {
            XCTAssertEqual(($0 as? VNError)?.code, .invalidArgument)
        }
        XCTAssertEqual(observation.availableJointNames.count, 21)
        XCTAssertEqual(observation.availableJointsGroupNames.count, 6)
        XCTAssertEqual(try observation.recognizedPoints(.thumb).count, 4)

        request.revision = 7
        XCTAssertThrowsError(try VNImageRequestHandler(cvPixelBuffer: pixels).perform([request])) {
            XCTAssertEqual(($0 as? VNError)?.code, .unsupportedRevision)
        }
        XCTAssertNil(request.results)
        request.revision = VNDetectHumanHandPoseRequestRevision1
        request.maximumHandCount = 0
        XCTAssertThrowsError(try VNImageRequestHandler(cvPixelBuffer: pixels).perform([request])) {
            XCTAssertEqual(($0 as? VNError)?.code, .invalidOption)
        }

        let seen = ErrorBox()
        let missing = VNDetectHumanBodyPoseRequest { _, error in seen.error = error }
        missing.modelAssetPath = "/nonexistent/pose.task"
        let fine = try VisionFixture.handRequest()
        XCTAssertThrowsError(try VNImageRequestHandler(cvPixelBuffer: pixels).perform([missing, fine])) {
            XCTAssertEqual(($0 as? VNError)?.code, .invalidModel)
        }
        XCTAssertEqual((seen.error as? VNError)?.code, .invalidModel)
        XCTAssertEqual(fine.results?.count, 1, "the other request still ran")
    }

    final class ErrorBox: @unchecked Sendable { var error: (any Error)? }

    /// Body groups hold Vision's members; neck and root are the midpoints of their pairs.
    func testBodyGroupsAndMidpoints() throws {
        let (pixels, _) = try VisionFixture.pixels("pose_fullbody_yoga_warrior")
        let request = try VisionFixture.bodyRequest()
        try VNImageRequestHandler(cvPixelBuffer: pixels).perform([request])
        let body = try XCTUnwrap(request.results?.first)
        XCTAssertEqual(Set(try body.recognizedPoints(.torso).keys), [.neck, .leftShoulder, .rightShoulder, .leftHip, .rightHip, .root])
        XCTAssertEqual(Set(try body.recognizedPoints(.face).keys), [.nose, .leftEye, .rightEye, .leftEar, .rightEar])
        XCTAssertEqual(Set(try body.recognizedPoints(.leftLeg).keys), [.leftHip, .leftKnee, .leftAnkle])
        XCTAssertEqual(body.availableJointNames.count, 19)
        let l = try body.recognizedPoint(.leftShoulder), r = try body.recognizedPoint(.rightShoulder)
        let neck = try body.recognizedPoint(.neck)
        XCTAssertEqual(neck.x, (l.x + r.x) / 2, accuracy: 1e-6)
        XCTAssertEqual(neck.confidence, min(l.confidence, r.confidence))
        // The person faces the camera: their left shoulder is on the image's right.
        XCTAssertGreaterThan(l.x, r.x)
    }

    func testPointConversions() {
        let p = VNImagePointForNormalizedPoint(CGPoint(x: 0.25, y: 0.5), 640, 480)
        XCTAssertEqual(p, CGPoint(x: 160, y: 240))
        XCTAssertEqual(VNNormalizedPointForImagePoint(p, 640, 480), CGPoint(x: 0.25, y: 0.5))
        XCTAssertEqual(VNNormalizedPointForImagePoint(p, 0, 0), .zero)
        XCTAssertEqual(CGImagePropertyOrientation.leftMirrored.rawValue, 5)
        XCTAssertEqual(CGImagePropertyOrientation.right.imageOrientation, .right)
        XCTAssertEqual(VNChirality.left.rawValue, -1)
    }
}
