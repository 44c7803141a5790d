import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksMLKit
import XCTest

/// The ML Kit façade's API: orientations, modes, completion handlers, model choice, errors.
final class PoseDetectorTests: XCTestCase {
    /// The orientation that undoes `o` (the quarter turns swap; mirrors and the half turn
    /// undo themselves).
    static func inverse(_ o: ImageOrientation) -> ImageOrientation {
        switch o {
        case .left: return .right
        case .right: return .left
        default: return o
        }
    }

    /// For each of the eight orientations, the photo stored turned (or mirrored) and given
    /// with that orientation yields the upright photo's landmarks at the same pixels. With a
    /// mirrored orientation the stored pixels are the camera's true view and the upright
    /// picture its mirror image, so each side's landmark is the upright photo's other side.
    func testAllEightOrientationsGiveTheUprightLandmarks() throws {
        let item = try XCTUnwrap(try ReferenceMedia.images().first { $0.name == "pose_fullbody_yoga_warrior" })
        let upright = try MPImage(contentsOf: item.pixelsFile).pixelBuffer
        let poseDetector = try PoseDetectorAccuracyTests.detector(.singleImage)
        let expected = try XCTUnwrap(try poseDetector.results(in: VisionImage(buffer: upright)).first)
        for orientation in ImageOrientation.allCases {
            let stored = upright.reoriented(Self.inverse(orientation).exifOrientation)
            XCTAssertEqual(stored.reoriented(orientation.exifOrientation).packed(), upright.packed(), "\(orientation): test setup")
            let image = VisionImage(buffer: stored)
            image.orientation = orientation
            XCTAssertEqual(image.width, upright.width)
            let pose = try XCTUnwrap(try poseDetector.results(in: image).first, "\(orientation)")
            var worst: CGFloat = 0
            for type in PoseLandmarkType.allCases {
                let got = pose.landmark(ofType: type).position
                let twin = orientation.isMirrored ? Self.opposite(type) : type
                let want = expected.landmark(ofType: twin).position
                worst = max(worst, abs(got.x - want.x), abs(got.y - want.y), abs(got.z - want.z))
            }
            XCTAssertLessThanOrEqual(worst, 1e-3 * CGFloat(upright.width), "\(orientation)")
            print("ML Kit orientation \(orientation): largest difference from upright \(worst) px")
        }
    }

    static func opposite(_ type: PoseLandmarkType) -> PoseLandmarkType {
        let name = type.rawValue
        if name.hasPrefix("Left") { return PoseLandmarkType(rawValue: "Right" + name.dropFirst(4)) ?? type }
        if name.hasPrefix("Right") { return PoseLandmarkType(rawValue: "Left" + name.dropFirst(5)) ?? type }
        if name == "MouthLeft" { return .mouthRight }
        if name == "MouthRight" { return .mouthLeft }
        return type
    }

    func testLandmarkTypesAreMLKitsNamesInBlazePoseOrder() {
        XCTAssertEqual(PoseLandmarkType.allCases.count, 33)
        XCTAssertEqual(PoseLandmarkType.nose.index, 0)
        XCTAssertEqual(PoseLandmarkType.leftToe.index, 31)
        XCTAssertEqual(PoseLandmarkType.rightToe.index, 32)
        XCTAssertEqual(PoseLandmarkType.leftPinkyFinger.index, VisionTasks.PoseLandmark.leftPinky.rawValue)
        XCTAssertEqual(Self.opposite(.leftEyeInner), .rightEyeInner)
    }

    /// `process(_:completion:)` answers on the detector's background queue (never needing a
    /// running main queue), and the async form gives the same poses.
    func testCompletionAndAsyncForms() async throws {
        let item = try XCTUnwrap(try ReferenceMedia.images().first { $0.name == "pose_fullbody_frisbee" })
        let image = VisionImage(image: try MPImage(contentsOf: item.pixelsFile))
        let poseDetector = try PoseDetectorAccuracyTests.detector(.singleImage)
        let done = expectation(description: "completion")
        let box = ResultBox()
        poseDetector.process(image) { poses, error in
            box.set(poses: poses, error: error, onMain: Thread.isMainThread)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 120)
        XCTAssertNil(box.error)
        XCTAssertEqual(box.poses?.count, 1)
        XCTAssertFalse(box.onMain)
        let awaited = try await poseDetector.process(image)
        XCTAssertEqual(awaited.first?.landmark(ofType: .nose).position.x, box.poses?.first?.landmark(ofType: .nose).position.x)
    }

    final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var poses: [Pose]?
        private(set) var error: (any Error)?
        private(set) var onMain = false
        func set(poses: [Pose]?, error: (any Error)?, onMain: Bool) {
            lock.withLock {
                self.poses = poses
                self.error = error
                self.onMain = onMain
            }
        }
    }

    /// Base prefers Google's lite bundle, accurate the heavy one, each only when the model
    /// folder holds it; both fall back to BlazePose full.
    func testModelChoice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mlkit-models-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = PoseDetectorOptions()
        base.modelDirectory = folder
        let accurate = AccuratePoseDetectorOptions()
        accurate.modelDirectory = folder
        XCTAssertEqual(PoseDetector.poseDetector(options: base).modelAssetPath, folder.appendingPathComponent("pose_landmarker_full.task").path)
        XCTAssertEqual(PoseDetector.poseDetector(options: accurate).modelAssetPath, folder.appendingPathComponent("pose_landmarker_full.task").path)
        for name in ["pose_landmarker_lite.task", "pose_landmarker_heavy.task"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent(name))
        }
        XCTAssertEqual(PoseDetector.poseDetector(options: base).modelAssetPath, folder.appendingPathComponent("pose_landmarker_lite.task").path)
        XCTAssertEqual(PoseDetector.poseDetector(options: accurate).modelAssetPath, folder.appendingPathComponent("pose_landmarker_heavy.task").path)
        XCTAssertEqual(base.detectorMode, .stream)
        // That "lite" file is not a model: an error from the first call, not a crash.
        let image = VisionImage(buffer: try PixelBuffer(width: 8, height: 8, format: .rgb8))
        XCTAssertThrowsError(try PoseDetector.poseDetector(options: base).results(in: image))
        let missing = PoseDetectorOptions()
        missing.modelAssetPath = folder.appendingPathComponent("absent.task").path
        XCTAssertThrowsError(try PoseDetector.poseDetector(options: missing).results(in: image)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .notFoundError)
        }
    }

    /// Nobody in the picture: an empty array.
    func testNobodyGivesAnEmptyArray() throws {
        let item = try XCTUnwrap(try ReferenceMedia.images().first { $0.name == "neg_banana" })
        let poses = try PoseDetectorAccuracyTests.detector(.singleImage).results(in: VisionImage(image: try MPImage(contentsOf: item.pixelsFile)))
        XCTAssertTrue(poses.isEmpty)
    }
}
