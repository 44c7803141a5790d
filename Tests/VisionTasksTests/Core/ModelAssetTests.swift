import Foundation
import LiteInterpreter
import TestSupport
@_spi(Apps) @testable import VisionTasks
import XCTest

final class ModelAssetTests: XCTestCase {
    func testOpensNestedBundlesAndModels() throws {
        let path = try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
        let asset = try ModelAsset(baseOptions: BaseOptions(modelAssetPath: path))
        let hands = try asset.nestedAsset(named: "hand_landmarker.task")
        let detector = try hands.model(named: "hand_detector.tflite")
        XCTAssertEqual(detector.inputs.first?.shape, [1, 192, 192, 3])
    }

    func testMissingFileMemberAndGarbageAreTasksErrors() throws {
        XCTAssertThrowsError(try ModelAsset(baseOptions: BaseOptions(modelAssetPath: "/nonexistent/x.task"))) {
            guard case TasksError.notFound = $0 else { return XCTFail("\($0)") }
        }
        let garbage = BaseOptions(modelAssetBuffer: Data("not a zip".utf8))
        XCTAssertThrowsError(try ModelAsset(baseOptions: garbage)) {
            guard case TasksError.invalidArgument = $0 else { return XCTFail("\($0)") }
        }
        let path = try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task").path
        let asset = try ModelAsset(baseOptions: BaseOptions(modelAssetPath: path))
        XCTAssertThrowsError(try asset.model(named: "hand_detector.tflite")) {
            guard case TasksError.notFound(let message) = $0 else { return XCTFail("\($0)") }
            XCTAssertTrue(message.contains("hand_detector.tflite"), message)
        }
    }

    func testNormalisationMetadataSetsTheInputRange() throws {
        // The reference pose bundle's detector carries mean 127.5 / std 127.5 → [-1, 1].
        let path = try SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task").path
        let model = try ModelAsset(baseOptions: BaseOptions(modelAssetPath: path)).model(named: "pose_detector.tflite")
        var options = ImageToTensorOptions.poseDetection
        options.rangeMin = 0
        options.rangeMax = 1
        let normalized = options.normalized(by: model)
        XCTAssertEqual(normalized.rangeMin, -1)
        XCTAssertEqual(normalized.rangeMax, 1)
    }
}
