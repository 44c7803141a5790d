import Foundation
import VisionTasks
import XCTest

/// ML Kit's samples CSV: what loads, what is refused (with the line and column), the bounds.
final class PoseSampleCSVTests: XCTestCase {
    private var poses = SyntheticPose(seed: 7)

    /// A valid CSV line for class `className`.
    private func line(_ name: String = "a.jpg", _ className: String = "squats_up") throws -> String {
        try PoseSample(name: name, className: className, landmarks: poses.landmarks(depth: 0)).csvLine
    }

    /// `line` with the field at 0-based `index` replaced by `value`.
    private func replacing(_ line: String, field index: Int, with value: String) -> String {
        var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[index] = value
        return fields.joined(separator: ",")
    }

    private func load(_ text: String, limits: PoseSample.CSVLimits = PoseSample.CSVLimits()) throws -> [PoseSample] {
        try PoseSample.samples(csv: Data(text.utf8), limits: limits)
    }

    private func assertError(_ text: String, _ expected: PoseClassificationError, _ message: String,
                             file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(text), file: file, line: line) { error in
            XCTAssertEqual(error as? PoseClassificationError, expected, file: file, line: line)
            XCTAssertTrue(String(describing: error).contains(message), "\(error)", file: file, line: line)
        }
    }

    func testSamplesRoundTripExactlyThroughTheCSV() throws {
        let samples = try poses.samples("squats_down", depth: 1, count: 5) + poses.samples("squats_up", depth: 0, count: 5)
        let text = PoseSample.csv(samples)
        XCTAssertEqual(text.split(separator: "\n").count, 10)
        XCTAssertEqual(text.split(separator: "\n")[0].split(separator: ",").count, 101)
        XCTAssertEqual(try load(text), samples, "every Float reads back bit for bit")
    }

    /// A line in the form of ML Kit's own samples (a screenshot's name, a class, 99 numbers with
    /// up to 8 significant digits).
    func testMLKitsNumberFormLoads() throws {
        let numbers = (0..<99).map { i in i % 3 == 2 ? "-1716.2709" : (i % 3 == 0 ? "1251.0012" : "384.75177") }
        var values = numbers
        // Two hips apart so that the pose has a size.
        values[23 * 3] = "1336.4043"
        values[24 * 3] = "1159.9393"
        let text = "Screenshot_2021-02-11_at_12.43.07.png,pushups_up," + values.joined(separator: ",")
        let sample = try XCTUnwrap(try load(text).first)
        XCTAssertEqual(sample.name, "Screenshot_2021-02-11_at_12.43.07.png")
        XCTAssertEqual(sample.className, "pushups_up")
        XCTAssertEqual(sample.landmarks[0], SIMD3(1251.0012, 384.75177, -1716.2709))
    }

    func testLineEndingsBlankLinesAndAByteOrderMarkAreAccepted() throws {
        let a = try line("a"), b = try line("b", "squats_down")
        let samples = try load("\u{FEFF}" + a + "\r\n\r\n   \n" + b + "\r\n")
        XCTAssertEqual(samples.map(\.name), ["a", "b"])
        XCTAssertEqual(samples.map(\.className), ["squats_up", "squats_down"])
    }

    func testWrongColumnCountsNameTheLine() throws {
        let good = try line()
        let short = good.split(separator: ",").dropLast(3).joined(separator: ",")
        assertError(good + "\n" + short + "\n", .wrongColumnCount(line: 2, found: 98), "line 2: 98 columns")
        assertError(good + ",1\n", .wrongColumnCount(line: 1, found: 102), "line 1: 102 columns")
        assertError("name,class,1,2,3\n", .wrongColumnCount(line: 1, found: 5), "a pose sample has 101")
        // A header line, as a spreadsheet might add: refused at its first coordinate.
        let header = (["name", "class"] + (1...33).flatMap { ["x\($0)", "y\($0)", "z\($0)"] }).joined(separator: ",")
        assertError(header + "\n" + good, .notANumber(line: 1, column: 3, text: "x1"), "line 1, column 3: \"x1\" is not a number")
    }

    func testNonNumbersNaNAndInfinityNameLineAndColumn() throws {
        let good = try line()
        assertError(good + "\n" + replacing(good, field: 10, with: "abc"),
                    .notANumber(line: 2, column: 11, text: "abc"), "line 2, column 11: \"abc\" is not a number")
        assertError(replacing(good, field: 2, with: ""), .notANumber(line: 1, column: 3, text: ""), "is not a number")
        for text in ["NaN", "nan", "inf", "-inf", "1e39", "-3.5e38"] {
            assertError(replacing(good, field: 4, with: text), .notFinite(line: 1, column: 5, text: text),
                        "is not a finite coordinate")
        }
        // Java's spelling, which Float.parseFloat reads as infinity.
        XCTAssertThrowsError(try load(replacing(good, field: 4, with: "Infinity"))) { error in
            XCTAssertTrue(String(describing: error).hasPrefix("line 1, column 5:"), "\(error)")
        }
        // Spaces around a number are accepted, as by Java's Float.parseFloat.
        XCTAssertNoThrow(try load(replacing(good, field: 4, with: " 12.5 ")))
    }

    func testEmptyClassTextThatIsNotUTF8AndDegeneratePoses() throws {
        let good = try line()
        assertError(replacing(good, field: 1, with: ""), .emptyClassName(line: 1), "line 1: the class name (column 2) is empty")
        var bytes = Array((good + "\n").utf8) + Array(try line("x").utf8)
        let second = (good + "\n").utf8.count
        bytes[second] = 0xFF
        XCTAssertThrowsError(try PoseSample.samples(csv: Data(bytes))) { error in
            XCTAssertEqual(error as? PoseClassificationError, .notText(line: 2))
        }
        let zeros = "same,squats_up," + Array(repeating: "5", count: 99).joined(separator: ",")
        assertError(good + "\n" + zeros, .degeneratePose(line: 2, name: "same"), "line 2: the landmarks give no usable pose")
        let huge = replacing(replacing(good, field: 2, with: "3e38"), field: 3, with: "-3e38")
        XCTAssertThrowsError(try load(huge)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .degeneratePose(line: 1, name: "a.jpg"))
        }
    }

    func testLimitsBoundWhatIsRead() throws {
        let text = try (0..<5).map { try line("s\($0)") }.joined(separator: "\n")
        var limits = PoseSample.CSVLimits()
        limits.maximumSamples = 4
        XCTAssertThrowsError(try load(text, limits: limits)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .tooManySamples(limit: 4))
        }
        limits = PoseSample.CSVLimits()
        limits.maximumBytes = 1000
        XCTAssertThrowsError(try load(text, limits: limits)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .tooLarge(bytes: text.utf8.count, limit: 1000))
        }

        // A file: read no further than the limit.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("csv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("samples.csv")
        try Data(text.utf8).write(to: file)
        XCTAssertThrowsError(try PoseSample.samples(contentsOfCSVFile: file.path, limits: limits)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .tooLarge(bytes: text.utf8.count, limit: 1000))
        }
        XCTAssertEqual(try PoseSample.samples(contentsOfCSVFile: file.path).count, 5)
        // A device of endless bytes has no size: what was read says it is too large.
        XCTAssertThrowsError(try PoseSample.samples(contentsOfCSVFile: "/dev/zero", limits: limits)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .tooLarge(bytes: 1001, limit: 1000))
            XCTAssertEqual("\(error)", "the samples CSV is larger than the limit of 1000 bytes (1001 bytes or more)")
        }
        XCTAssertThrowsError(try PoseSample.samples(contentsOfCSVFile: folder.path)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .cannotRead(path: folder.path, reason: "a directory, not a CSV file"))
        }
        let missing = folder.appendingPathComponent("missing.csv").path
        XCTAssertThrowsError(try PoseSample.samples(contentsOfCSVFile: missing)) { error in
            XCTAssertEqual(String(describing: error), "\(missing): no such file")
        }
        XCTAssertEqual(try load(""), [], "an empty CSV has no samples (the classifier refuses them)")
    }

    func testSamplesFromCodeAreChecked() throws {
        let points = poses.landmarks(depth: 0)
        XCTAssertThrowsError(try PoseSample(name: "x", className: "up", landmarks: Array(points.prefix(32)))) { error in
            XCTAssertEqual(String(describing: error), "pose sample \"x\": 32 landmarks; a pose sample has 33")
        }
        var bad = points
        bad[5].z = .nan
        XCTAssertThrowsError(try PoseSample(name: "x", className: "up", landmarks: bad)) { error in
            XCTAssertEqual(String(describing: error), "pose sample \"x\": landmark 5 is not finite")
        }
        XCTAssertThrowsError(try PoseSample(name: "x", className: "", landmarks: points))
        // Commas, line feeds, carriage returns and byte order marks cannot be in the CSV: written
        // as "_". Everything else is kept (a vertical tab or a line separator ends no line for a
        // CSV reader).
        let sample = try PoseSample(name: "\u{FEFF}a,b\nc\rd", className: "up,down", landmarks: points)
        XCTAssertTrue(sample.csvLine.hasPrefix("_a_b_c_d,up_down,"))
        let kept = try PoseSample(name: "a\u{0B}b\u{2028}c", className: "up", landmarks: points)
        XCTAssertEqual(try load("\n" + kept.csvLine), [kept])
        // From a PoseLandmarker result: x × width, y × height, z × width.
        let normalised = points.map { NormalizedLandmark(x: $0.x / 640, y: $0.y / 480, z: $0.z / 640) }
        let converted = try PoseSample(name: "n", className: "up", landmarks: normalised, imageWidth: 640, imageHeight: 480)
        for (a, b) in zip(converted.landmarks, points) {
            XCTAssertEqual(a.x, b.x, accuracy: 1e-3)
            XCTAssertEqual(a.y, b.y, accuracy: 1e-3)
            XCTAssertEqual(a.z, b.z, accuracy: 1e-3)
        }
    }
}
