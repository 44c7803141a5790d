import Foundation
import MediaIO
import VisionTasks

/// Turns a client's encoded image into an `MPImage` within the server's limits: the byte
/// count, then the pixel count declared by the header (before any pixel memory is allocated),
/// then the JPEG or PNG decoder, whose `MediaError` becomes a `badImage` answer.
enum FrameDecoder {
    static func decode(_ bytes: Data, limits: ServerLimits) throws(ServerError) -> MPImage {
        guard !bytes.isEmpty else { throw ServerError(code: .badImage, message: "the image is empty") }
        guard bytes.count <= limits.maxImageBytes else {
            throw ServerError(
                code: .imageTooLarge, message: "the image has \(bytes.count) bytes; the limit is \(limits.maxImageBytes)")
        }
        if let (width, height) = ImageHeader.dimensions(of: bytes) {
            let pixels = width.multipliedReportingOverflow(by: height)
            guard !pixels.overflow, pixels.partialValue <= limits.maxImagePixels else {
                throw ServerError(
                    code: .imageTooLarge,
                    message: "the image is \(width)x\(height) pixels; the limit is \(limits.maxImagePixels) pixels")
            }
        }
        do {
            return MPImage(pixelBuffer: try ImageDecoder.decode(bytes, source: "the image").pixels)
        } catch let error as MediaError {
            if case .tooLarge = error.reason {
                throw ServerError(code: .imageTooLarge, message: error.description)
            }
            throw ServerError(code: .badImage, message: error.description)
        } catch {
            throw ServerError(code: .badImage, message: "the image cannot be decoded: \(error)")
        }
    }
}
