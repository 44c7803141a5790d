import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Progressive JPEGs of many tiny scans, each a pass over the whole image (or a component) for
/// libjpeg: the decoder stops at the first scan it knows to be bad, refuses scans that would go
/// over the image's blocks more than 32 times, and more than 500 scans, so such a file costs at
/// most 32 passes, not one per scan (10 000 copies of a 56-byte scan kept a core busy for 16 s).
/// No timing is asserted.
final class JPEGScanLimitTests: XCTestCase {
    private let jpeg = ProgressiveJPEG(width: 1024, height: 1024)

    private func reason(_ bytes: [UInt8]) -> MediaIOError.Reason? {
        do {
            _ = try ImageDecoder.decode(bytes, source: "bomb.jpg")
            return nil
        } catch let error as MediaIOError {
            return error.reason
        } catch {
            XCTFail("not a MediaIOError: \(error)")
            return nil
        }
    }

    /// The same AC scan with Al = 1, 20 000 times: libjpeg's "bogus progression" warning at the
    /// second copy ends decoding there.
    func testARepeatedScanThatLibjpegWarnsAboutStopsAtTheWarning() {
        let bomb = jpeg.repeatedScanBomb(repeats: 20_000, low: 1)
        guard case .corrupt(let detail) = reason(bomb) else { return XCTFail("\(String(describing: reason(bomb)))") }
        XCTAssertTrue(detail.contains("progression"), detail)
    }

    /// The same AC scan with Al = 0, 20 000 times: libjpeg does not warn (each copy would be
    /// decoded over the last); a scan that codes a coefficient again from its first bit is
    /// corrupt, at the second copy.
    func testARepeatedFirstScanIsCorruptAtItsSecondCopy() {
        let bomb = jpeg.repeatedScanBomb(repeats: 20_000, low: 0)
        guard case .corrupt(let detail) = reason(bomb) else { return XCTFail("\(String(describing: reason(bomb)))") }
        XCTAssertTrue(detail.contains("scan 3 codes coefficient 1"), detail)
    }

    /// Well-formed scans, one coefficient each, 127 of them: over the budget of 32 passes over
    /// the image's blocks at scan 33, an unsupported file. (Before, 505 such scans of a
    /// 4096 x 4096 image, 53 kB, took 3 s of a core.)
    func testScansThatGoOverTheImageMoreThan32TimesAreRefused() {
        let many = jpeg.manyScans(refinements: 1)
        guard case .unsupportedFormat(let detail) = reason(many) else { return XCTFail("\(String(describing: reason(many)))") }
        XCTAssertTrue(detail.contains("more than 32 times (scan 33"), detail)
    }

    /// Scans of small components stay under the pass budget for longer: a frame of one
    /// component sampled 4x4 and three sampled 1x1 (each 1/19 of the blocks), and a first scan
    /// and two refinements of every AC coefficient of the three (571 scans): refused at the
    /// 500-scan limit.
    func testMoreThan500ScansAreRefused() {
        let fourComponents = ProgressiveJPEG(width: 4096, height: 4096, sampling: [4, 1, 1, 1])
        let many = fourComponents.manyScans(refinements: 2, components: [1, 2, 3])
        guard case .unsupportedFormat(let detail) = reason(many) else { return XCTFail("\(String(describing: reason(many)))") }
        XCTAssertTrue(detail.contains("more than 500 scans"), detail)
    }

    /// A file of 31 well-formed scans (the DC scan and one per AC coefficient 1 to 30) decodes:
    /// the rules refuse repeats and excess, not progressive files with many scans.
    func testAWellFormedFileOfManyScansStillDecodes() throws {
        let scans = jpeg.dcScans + (1...30).map { ProgressiveJPEG.Scan(first: $0, last: $0) }
        let image = try ImageDecoder.decode(jpeg.bytes(scans: scans), source: "31 scans")
        XCTAssertEqual(image.pixels.width, 1024)
        XCTAssertEqual(image.pixels.height, 1024)
        XCTAssertEqual(image.pixels.format, .gray8)
        XCTAssertTrue(image.pixels.bytes.allSatisfy { $0 == 128 })
    }
}
