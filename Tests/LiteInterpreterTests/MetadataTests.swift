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

    /// A damaged appended archive never crashes the loader (ZIPFoundation's in-memory archives
    /// trap on out-of-range offsets; the archive is read file-backed through `ZipArchiveReader`):
    /// an offset past the end leaves no associated files, a wrong checksum is a typed error.
    func testDamagedAppendedArchiveIsAnErrorNotACrash() throws {
        let bytes = [UInt8](try Data(contentsOf: try SharedTestData.installedModel("custom_gesture_classifier.tflite")))
        func lastOffset(of signature: [UInt8]) throws -> Int {
            try XCTUnwrap((0...(bytes.count - 4)).last { Array(bytes[$0..<$0 + 4]) == signature })
        }
        func patched(_ offset: Int, _ value: UInt32) -> [UInt8] {
            var copy = bytes
            for i in 0..<4 { copy[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
            return copy
        }
        let endOfDirectory = try lastOffset(of: [0x50, 0x4B, 0x05, 0x06])
        let directoryEntry = try lastOffset(of: [0x50, 0x4B, 0x01, 0x02])

        // The central directory's offset (end record, field 16) far past the end of the file.
        do {
            let model = try Model(bytes: patched(endOfDirectory + 16, 0x7FFF_FF00))
            XCTAssertTrue(model.associatedFileNames.isEmpty)
        } catch {
            guard case .malformedMetadata? = error as? ModelError else { return XCTFail("unexpected \(error)") }
        }
        // labels.txt's CRC-32 (central directory entry, field 16) wrong.
        XCTAssertThrowsError(try Model(bytes: patched(directoryEntry + 16, 0x1234_5678))) { error in
            guard case let .malformedMetadata(message)? = error as? ModelError else { return XCTFail("unexpected \(error)") }
            XCTAssertTrue(message.contains("labels.txt"), message)
        }
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
