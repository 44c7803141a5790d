import Foundation
import MediaIO
import VisionTasks
import VisionTasksAppleVision

/// Vision's handlers for files and encoded bytes: JPEG and PNG, decoded with MediaIO (so this
/// module, unlike `VisionTasksAppleVision`, needs libjpeg-turbo, libpng and FFmpeg).
extension VNImageRequestHandler {
    /// A handler for the JPEG or PNG file at `url` (Vision's `init(url:orientation:options:)`).
    /// The file is decoded on the first perform (its EXIF orientation applied, then
    /// `orientation` on top); an unreadable file makes `perform` throw `VNError(.invalidImage)`.
    public convenience init(url: URL, orientation: CGImagePropertyOrientation = .up, options: [VNImageOption: Any] = [:]) {
        self.init(orientation: orientation) {
            do {
                return try ImageDecoder.decode(contentsOfFile: url.path).pixels
            } catch {
                throw VNError(.invalidImage, "\(error)")
            }
        }
    }

    /// A handler for encoded JPEG or PNG bytes (Vision's `init(data:orientation:options:)`),
    /// decoded on the first perform; undecodable bytes make `perform` throw
    /// `VNError(.invalidImage)`.
    public convenience init(data: Data, orientation: CGImagePropertyOrientation = .up, options: [VNImageOption: Any] = [:]) {
        self.init(orientation: orientation) {
            do {
                return try ImageDecoder.decode(data, source: "<data>").pixels
            } catch {
                throw VNError(.invalidImage, "\(error)")
            }
        }
    }
}
