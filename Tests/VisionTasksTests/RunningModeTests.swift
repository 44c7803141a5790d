import VisionTasks
import XCTest

final class RunningModeTests: XCTestCase {
    func testNamesMatchMediaPipe() {
        XCTAssertEqual(RunningMode.allCases.map(\.description), ["image", "video", "liveStream"])
    }
}
