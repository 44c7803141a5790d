@testable import VisionTasksCLI
import ArgumentParser
import XCTest

final class CommandTests: XCTestCase {
    func testCommandName() {
        XCTAssertEqual(VisionTasksCommand.configuration.commandName, "vision-tasks")
    }

    /// A negative number after a numeric option is its value, not an option (`--num-hands -2`
    /// must not say "Missing value"), so the range check says what is allowed.
    func testNegativeNumbersReachTheRangeCheck() {
        let cases: [([String], String)] = [
            (["serve", "--port", "-1"], "--port must be from 0 to 65535"),
            (["hands", "x.jpg", "--num-hands", "-2"], "--num-hands must be at least 1"),
            (["hands", "x.jpg", "--min-hand-detection-confidence", "-0.5"], "must be between 0 and 1"),
            (["pose", "x.jpg", "--num-poses", "-1"], "--num-poses"),
            (["pose", "x.jpg", "--threads", "-3"], "--threads must be between 1 and"),
            (["swipe", "x.mp4", "--cooldown", "-5"], "--cooldown must be 0 ms or more"),
            (["swipe", "x.mp4", "--swipe-window", "-5"], "--swipe-window"),
        ]
        for (arguments, expected) in cases {
            do {
                _ = try VisionTasksCommand.parseAsRoot(arguments)
                XCTFail("\(arguments) parsed")
            } catch {
                let message = VisionTasksCommand.message(for: error)
                XCTAssertTrue(message.contains(expected), "\(arguments): \(message)")
                XCTAssertFalse(message.contains("Missing value"), "\(arguments): \(message)")
            }
        }
        // A missing value is still said so.
        XCTAssertThrowsError(try VisionTasksCommand.parseAsRoot(["hands", "x.jpg", "--num-hands"])) {
            XCTAssertTrue(VisionTasksCommand.message(for: $0).contains("Missing value"))
        }
    }
}
