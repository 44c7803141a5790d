import Foundation
@testable import VisionTasksCLI
import XCTest

final class ModelsCommandTests: XCTestCase {
    func testParsesModelsSubcommands() throws {
        let list = try VisionTasksCommand.parseAsRoot(["models", "list", "--directory", "/tmp/m"])
        XCTAssertEqual((list as? ModelsListCommand)?.directory, "/tmp/m")
        let install = try VisionTasksCommand.parseAsRoot(["models", "install", "--python", "/opt/py", "-q"])
        XCTAssertEqual((install as? ModelsInstallCommand)?.python, "/opt/py")
        XCTAssertEqual((install as? ModelsInstallCommand)?.quiet, true)
    }

    func testSizeFormatting() {
        XCTAssertEqual(ModelsListCommand.formatted(512), "512 B")
        XCTAssertEqual(ModelsListCommand.formatted(6928), "6.8 KB")
        XCTAssertEqual(ModelsListCommand.formatted(5_478_917), "5.2 MB")
    }
}
