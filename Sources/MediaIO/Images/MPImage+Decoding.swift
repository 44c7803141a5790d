import Foundation
import VisionTasks

extension MPImage {
    /// Decodes the JPEG or PNG file at `path` (EXIF orientation applied).
    /// Throws `MediaIOError` naming the file and the reason when it cannot be read or decoded.
    public convenience init(contentsOfFile path: String, orientation: ImageOrientation = .up) throws {
        self.init(pixelBuffer: try ImageDecoder.decode(contentsOfFile: path).pixels, orientation: orientation)
    }

    /// Decodes the JPEG or PNG file at `url` (EXIF orientation applied).
    public convenience init(contentsOf url: URL, orientation: ImageOrientation = .up) throws {
        try self.init(contentsOfFile: url.path, orientation: orientation)
    }

    /// Decodes encoded JPEG or PNG bytes (EXIF orientation applied).
    public convenience init(data: Data, orientation: ImageOrientation = .up) throws {
        self.init(pixelBuffer: try ImageDecoder.decode(data, source: "<data>").pixels, orientation: orientation)
    }
}
