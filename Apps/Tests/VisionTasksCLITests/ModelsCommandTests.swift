import ArgumentParser
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

    /// With a file as the model folder, `models list` says what the install says (not every
    /// model missing, with advice to run an install that would then refuse the folder).
    func testListRefusesAFileAsTheModelFolder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("models-list-\(UUID().uuidString)")
        try Data("not a folder".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertThrowsError(try ModelsListCommand.parse(["--directory", file.path]).run()) {
            XCTAssertTrue("\($0)".contains("is a file, not a folder"), "\($0)")
        }
    }

    func testSizeFormatting() {
        XCTAssertEqual(ModelsListCommand.formatted(512), "512 B")
        XCTAssertEqual(ModelsListCommand.formatted(6928), "6.8 KB")
        XCTAssertEqual(ModelsListCommand.formatted(5_478_917), "5.2 MB")
    }
}
