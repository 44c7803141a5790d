import TestSupport
import XCTest

final class ReferenceMediaTests: XCTestCase {
    func testEveryReferenceHasItsMedia() throws {
        let images = try ReferenceMedia.images()
        let videos = try ReferenceMedia.videos()
        XCTAssertEqual(images.count, 26)
        XCTAssertEqual(videos.count, 6)
        for image in images {
            XCTAssertTrue(FileManager.default.fileExists(atPath: image.pixelsFile.path), image.name)
        }
        struct Line: Decodable { var frame: Int; var timestampInMilliseconds: Int }
        let lines = try XCTUnwrap(videos.first).frames(as: Line.self)
        XCTAssertEqual(lines.map(\.frame), Array(0..<lines.count))
    }
}
