import Foundation
@testable import LiteInterpreter
import TestSupport
import XCTest

final class MetadataTests: XCTestCase {
    func testHandLandmarkNormalisationAndHandednessLabels() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("hand_landmark_full.tflite"))
        let metadata = try XCTUnwrap(model.metadata)
        XCTAssertEqual(metadata.name, "HandLandmarkDetector")
        XCTAssertEqual(metadata.inputTensors.count, 1)
        XCTAssertEqual(metadata.inputTensors[0].name, "image")
        XCTAssertEqual(metadata.inputTensors[0].normalization, NormalizationParameters(mean: [0, 0, 0], std: [255, 255, 255]))
        XCTAssertEqual(metadata.outputTensors.map(\.name), ["handedness", "presense score", "landmarks", "world landmarks"])
        XCTAssertEqual(metadata.outputTensors[0].associatedFiles.map(\.name), ["handedness.txt"])
        XCTAssertEqual(metadata.outputTensors[0].associatedFiles.first?.kind, .tensorAxisLabels)
        let handedness = try XCTUnwrap(try model.associatedFile(named: "handedness.txt"))
        XCTAssertEqual(String(decoding: handedness, as: UTF8.self).split(whereSeparator: \.isNewline), ["Left", "Right"])
        XCTAssertNil(try model.associatedFile(named: "labels.txt"))
    }

    func testCustomClassifierLabelsFromTheAppendedZip() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("custom_gesture_classifier.tflite"))
        XCTAssertEqual(model.associatedFileNames, ["labels.txt"])
        let labels = String(decoding: try XCTUnwrap(try model.associatedFile(named: "labels.txt")), as: UTF8.self)
            .split(whereSeparator: \.isNewline)
        XCTAssertEqual(labels.count, 9)
        XCTAssertEqual(labels.first, "none")
        XCTAssertEqual(model.metadata?.outputTensors.first?.associatedFiles.first?.name, "labels.txt")
        XCTAssertNil(model.metadata?.inputTensors.first?.normalization)
    }

    func testPoseDetectorNormalisationAndModelsWithoutMetadata() throws {
        let pose = try Model(contentsOf: try SharedTestData.installedModel("pose_detection.tflite"))
        XCTAssertEqual(pose.metadata?.inputTensors.first?.normalization, NormalizationParameters(mean: [127.5], std: [127.5]))
        XCTAssertTrue(pose.associatedFileNames.isEmpty)
        let palm = try Model(contentsOf: try SharedTestData.installedModel("palm_detection_lite.tflite"))
        XCTAssertNil(palm.metadata)
        XCTAssertTrue(palm.associatedFileNames.isEmpty)
    }

    func testOperatorCountsAndDescriptions() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("hand_landmark_lite.tflite"))
        let counts = Dictionary(uniqueKeysWithValues: model.operatorCounts.map { ($0.name, $0.count) })
        XCTAssertEqual(counts, ["DEQUANTIZE": 102, "CONV_2D": 31, "DEPTHWISE_CONV_2D": 16, "MAX_POOL_2D": 1,
                                "ADD": 10, "MEAN": 1, "FULLY_CONNECTED": 4, "LOGISTIC": 2])
        XCTAssertEqual(model.inputs, [TensorDescription(name: "input_1", shape: [1, 224, 224, 3], dataType: .float32)])
        XCTAssertEqual(model.outputs.map(\.shape), [[1, 63], [1, 1], [1, 1], [1, 63]])
    }
}
