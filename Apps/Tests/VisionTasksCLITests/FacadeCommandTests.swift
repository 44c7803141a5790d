import ArgumentParser
import Foundation
import TestSupport
@testable import VisionTasksCLI
import XCTest

/// `vision-tasks pose --api mlkit|vision` and `vision-tasks hands --api vision`: the façades'
/// results as JSON, with the values of MediaPipe's references after converting coordinates.
final class FacadeCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("facade-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func output(_ run: ([String]) throws -> Void, _ arguments: [String]) throws -> [String: Any] {
        let path = dir.appendingPathComponent("out-\(UUID().uuidString).json").path
        try run(arguments + ["--output", path, "--no-progress"])
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    private func reference(_ name: String) throws -> [String: Any] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: try SharedTestData.file("reference/\(name).json"))) as? [String: Any])
    }

    func testPoseMLKitPrintsPixelPositionsAndInFrameLikelihood() throws {
        let name = "pose_fullbody_yoga_warrior"
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let object = try output({ try PoseCommand.parse($0).run() }, [
            try SharedTestData.file("reference/\(name).pixels.png").path, "--api", "mlkit", "--model", model,
        ])
        let poses = try XCTUnwrap(object["mlkit"] as? [[String: Any]])
        XCTAssertEqual(poses.count, 1)
        let landmarks = try XCTUnwrap(poses[0]["landmarks"] as? [[String: Any]])
        XCTAssertEqual(landmarks.count, 33)
        XCTAssertEqual(landmarks[27]["type"] as? String, "LeftAnkle")
        let ref = try XCTUnwrap(((try reference(name)["pose"] as? [String: Any])?["landmarks"] as? [[[String: Double]]])?.first)
        for (landmark, r) in zip(landmarks, ref) {
            let position = try XCTUnwrap(landmark["position"] as? [String: Double])
            XCTAssertEqual(try XCTUnwrap(position["x"]) / 1000, try XCTUnwrap(r["x"]), accuracy: 1e-3)
            XCTAssertEqual(try XCTUnwrap(position["y"]) / 667, try XCTUnwrap(r["y"]), accuracy: 1e-3)
            XCTAssertEqual(try XCTUnwrap(landmark["inFrameLikelihood"] as? Double), try XCTUnwrap(r["presence"]), accuracy: 0.01)
        }
    }

    func testHandsVisionPrintsChiralityAndLowerLeftLocations() throws {
        let name = "hand_victory_right_01"
        let model = try SharedTestData.installedModel("hand_landmarker.task").path
        let object = try output({ try HandsCommand.parse($0).run() }, [
            try SharedTestData.file("reference/\(name).pixels.png").path, "--api", "vision", "--model", model,
        ])
        let hands = try XCTUnwrap(object["vision"] as? [[String: Any]])
        XCTAssertEqual(hands.count, 1)
        XCTAssertEqual(hands[0]["chirality"] as? String, "right")
        let points = try XCTUnwrap(hands[0]["points"] as? [[String: Any]])
        XCTAssertEqual(points.map { $0["joint"] as? String }.first, "wrist")
        XCTAssertEqual(points.count, 21)
        let gesture = try XCTUnwrap(try reference(name)["gesture"] as? [String: Any])
        let ref = try XCTUnwrap((gesture["landmarks"] as? [[[String: Double]]])?.first)
        for (point, r) in zip(points, ref) {
            XCTAssertEqual(try XCTUnwrap(point["x"] as? Double), try XCTUnwrap(r["x"]), accuracy: 1e-3)
            XCTAssertEqual(1 - (try XCTUnwrap(point["y"] as? Double)), try XCTUnwrap(r["y"]), accuracy: 1e-3)
        }
    }

    func testPoseVisionPrintsNineteenJoints() throws {
        let model = try SharedTestData.installedModel("pose_landmarker_full.task").path
        let object = try output({ try PoseCommand.parse($0).run() }, [
            try SharedTestData.file("reference/pose_two_people_walking_dog.pixels.png").path, "--api", "vision",
            "--num-poses", "2", "--model", model,
        ])
        let bodies = try XCTUnwrap(object["vision"] as? [[String: Any]])
        XCTAssertEqual(bodies.count, 2)
        XCTAssertEqual((bodies[0]["points"] as? [[String: Any]])?.count, 19)
        XCTAssertNil(bodies[0]["chirality"])
    }
}
