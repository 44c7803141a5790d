import Foundation
import XCTest

@testable import VisionTasks

final class MPMaskTests: XCTestCase {
    func testSizesAreChecked() {
        XCTAssertThrowsError(try MPMask(float32Data: [0, 1, 0], width: 2, height: 2)) { error in
            guard case TasksError.invalidArgument = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MPMask(uint8Data: [], width: 0, height: 0))
        XCTAssertThrowsError(try MPMask(uint8Data: [1], width: -1, height: -1))
        XCTAssertThrowsError(try MPMask(uint8Data: [1], width: Int.max, height: 2))
    }

    func testConversionsFollowMediaPipe() throws {
        let mask = try MPMask(float32Data: [0, 0.5, 1, 1.5, -0.2, .nan], width: 3, height: 2)
        XCTAssertEqual(mask.dataType, .float32)
        // value × 255, truncated (clamped).
        XCTAssertEqual(mask.uint8Data, [0, 127, 255, 255, 0, 0])
        XCTAssertEqual(mask.value(x: 1, y: 0), 0.5)
        XCTAssertEqual(mask.value(x: 0, y: 1), 1.5)
        XCTAssertNil(mask.value(x: 3, y: 0))
        XCTAssertNil(mask.value(x: 0, y: -1))

        // `Mask`, MediaPipe iOS's name, is the same type.
        let bytes: Mask = try Mask(uint8Data: [0, 51, 255, 128], width: 2, height: 2)
        XCTAssertEqual(bytes.dataType, .uInt8)
        XCTAssertEqual(bytes.float32Data, [0, 0.2, 1, Float(128) / 255])
        XCTAssertEqual(bytes.uint8Data, [0, 51, 255, 128])
    }

    func testCodableKeepsEveryValue() throws {
        let floats = try MPMask(float32Data: [0, 0.25, 1e-7, 0.999999], width: 2, height: 2)
        let bytes = try MPMask(uint8Data: [1, 2, 3], width: 3, height: 1)
        for mask in [floats, bytes] {
            let data = try JSONEncoder().encode(mask)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
            XCTAssertEqual(object["width"] as? Int, mask.width)
            XCTAssertEqual(object["dataType"] as? String, mask.dataType.description)
            XCTAssertEqual(try JSONDecoder().decode(MPMask.self, from: data), mask)
        }
        // Damaged data is a decoding error, not a crash.
        for bad in [
            #"{"width":2,"height":2,"dataType":"float32","data":"AAAA"}"#,
            #"{"width":2,"height":1,"dataType":"uint8","data":"!!"}"#,
            #"{"width":1,"height":1,"dataType":"float16","data":"AAA="}"#,
            #"{"width":1,"height":1,"dataType":"float32","data":"AAA="}"#,
        ] {
            XCTAssertThrowsError(try JSONDecoder().decode(MPMask.self, from: Data(bad.utf8)), bad)
        }
    }
}
