@testable import VisionTasksCLI
import XCTest

final class CommandTests: XCTestCase {
    func testCommandName() {
        XCTAssertEqual(VisionTasksCommand.configuration.commandName, "vision-tasks")
    }
}
