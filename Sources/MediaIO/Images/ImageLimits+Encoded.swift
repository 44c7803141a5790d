@_spi(Apps) import VisionTasks

extension ImageLimits {
    /// `ImageLimits.validate(width:height:source:)` for an image or video MediaIO reads or writes:
    /// `.image(.tooLarge)`, or `.image(.invalidArgument)` for non-positive sizes.
    static func check(width: Int, height: Int, source: String) throws(MediaIOError) {
        do {
            try validate(width: width, height: height, source: source)
        } catch {
            throw MediaIOError(error)
        }
    }

    /// `check(width:height:source:)`, and then `.corrupt` when a file of `encodedByteCount` bytes
    /// declares more pixels than it can encode (`maxPixelsPerEncodedByte`).
    static func check(width: Int, height: Int, encodedByteCount: Int, source: String) throws(MediaIOError) {
        try check(width: width, height: height, source: source)
        let (capacity, overflow) = encodedByteCount.multipliedReportingOverflow(by: maxPixelsPerEncodedByte)
        guard overflow || width * height <= capacity else {
            throw MediaIOError(source: source, reason: .corrupt(
                "declares \(width)x\(height) pixels, more than a \(encodedByteCount)-byte file can encode"
                    + " (at most \(maxPixelsPerEncodedByte) pixels a byte)"))
        }
    }

    /// The most pixels a file of `encodedByteCount` bytes may declare.
    static func maxPixels(encodedByteCount: Int) -> Int {
        let (capacity, overflow) = encodedByteCount.multipliedReportingOverflow(by: maxPixelsPerEncodedByte)
        return overflow ? maxPixels : min(maxPixels, capacity)
    }
}
