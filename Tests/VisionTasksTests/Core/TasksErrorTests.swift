import Foundation
import XCTest

@testable import VisionTasks

final class TasksErrorTests: XCTestCase {
    func testCodesMatchMediaPipe() {
        XCTAssertEqual(TasksError.invalidArgument("x").code.rawValue, 3)
        XCTAssertEqual(TasksError.failedPrecondition("x").code.rawValue, 9)
        XCTAssertEqual(TasksError.unimplemented("x").code.rawValue, 12)
        XCTAssertEqual(TasksError.internalError("x").code.rawValue, 13)
        XCTAssertEqual(TasksError.unauthenticated("x").code.rawValue, 16)
        XCTAssertEqual(TasksErrorCode.allCases.map(\.rawValue), Array(1...16))
        let timestamp = TasksError.nonMonotonicTimestamp(previousMilliseconds: 66, receivedMilliseconds: 33)
        XCTAssertEqual(timestamp.code, .invalidArgumentError)
        XCTAssertEqual(
            timestamp.message, "Input timestamp must be monotonically increasing: got 33 ms after 66 ms.")
    }

    func testBridgesToNSErrorWithMediaPipeDomain() {
        let error = TasksError.notFound("no such model: /tmp/x.task") as NSError
        XCTAssertEqual(error.domain, "com.google.mediapipe.tasks")
        XCTAssertEqual(error.code, 5)
        XCTAssertEqual(error.localizedDescription, "no such model: /tmp/x.task")
    }

    func testBaseOptions() throws {
        let options = BaseOptions()
        XCTAssertThrowsError(try options.modelSource()) { error in
            XCTAssertEqual(error as? TasksError, .invalidArgument("BaseOptions has no model: set `modelAssetPath` or `modelAssetBuffer`."))
        }
        options.modelAssetPath = "/models/hand_landmarker.task"
        XCTAssertEqual(try options.modelSource(), .file(URL(fileURLWithPath: "/models/hand_landmarker.task")))
        options.modelAssetBuffer = Data([1, 2, 3])
        XCTAssertEqual(try options.modelSource(), .buffer(Data([1, 2, 3])))  // buffer first
        options.modelAssetBuffer = Data()
        XCTAssertEqual(try options.modelSource(), .file(URL(fileURLWithPath: "/models/hand_landmarker.task")))
        let copy = options.copy()
        options.modelAssetPath = "/elsewhere"
        XCTAssertEqual(copy.modelAssetPath, "/models/hand_landmarker.task")
        copy.delegate = .gpu
        XCTAssertThrowsError(try copy.modelSource()) { error in
            XCTAssertEqual((error as? TasksError)?.code, .unimplementedError)
        }
        XCTAssertEqual(BaseOptions(modelAssetPath: "a").modelAssetPath, "a")
    }

    func testNumThreads() throws {
        let options = BaseOptions()
        XCTAssertEqual(options.numThreads, ProcessInfo.processInfo.activeProcessorCount)
        XCTAssertEqual(try options.threadCount(), options.numThreads)
        options.numThreads = 3
        let copy = options.copy()
        options.numThreads = 1
        XCTAssertEqual(copy.numThreads, 3)
        XCTAssertEqual(try options.threadCount(), 1)
        options.numThreads = BaseOptions.maxNumThreads
        XCTAssertEqual(try options.threadCount(), 4 * ProcessInfo.processInfo.activeProcessorCount)
        // Out of range: 100000 must not start 100000 threads per model.
        for invalid in [0, -2, BaseOptions.maxNumThreads + 1, 100_000] {
            options.numThreads = invalid
            XCTAssertThrowsError(try options.threadCount()) { error in
                XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
                XCTAssertTrue("\(error)".contains("numThreads"))
            }
        }
    }

    /// A debug build of the library warns once when a task is created (a consumer's plain
    /// `swift build` runs the models about 100 times slower); a release build says nothing.
    func testDebugBuildWarning() {
        #if DEBUG
        XCTAssertTrue(DebugBuildWarning.isDebugBuild)
        #else
        XCTAssertFalse(DebugBuildWarning.isDebugBuild)
        #endif
        XCTAssertTrue(DebugBuildWarning.message.contains("-c release"))
    }
}
