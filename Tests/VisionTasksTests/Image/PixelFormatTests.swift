import VisionTasks
import XCTest

final class PixelFormatTests: XCTestCase {
    func testBytesPerPixel() {
        XCTAssertEqual(PixelFormat.rgba8.bytesPerPixel, 4)
        XCTAssertEqual(PixelFormat.rgb8.bytesPerPixel, 3)
        XCTAssertEqual(PixelFormat.nv12VideoRange.bytesPerPixel, 1)
    }
}
