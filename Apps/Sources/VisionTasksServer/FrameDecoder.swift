import Foundation
@_spi(Apps) import MediaIO
@_spi(Apps) import VisionTasks

/// Turns a client's encoded image into an `MPImage` within the server's limits: the byte
/// count, then the pixel count declared by the header (before any pixel memory is allocated),
/// then the JPEG or PNG decoder, which holds the image to the same pixel limit on the dimensions
/// it parsed itself (the header scan is a quick early answer, not the guarantee: libjpeg skips
/// stray bytes between segments that a scan may stop at); its `MediaIOError` becomes a
/// `badImage` answer, or `imageTooLarge`.
///
/// An image wider or taller than the tasks take (`maxSide`) is `imageTooLarge` too, from the
/// header when it can be read, else from the decoded size, never a `taskFailed` after decoding.
///
/// With `threads` (a live session's: its task's model threads, idle between frames) a JPEG's
/// reconstruction is shared over them; the pixels are the same.
enum FrameDecoder {
    /// The widest and tallest image the tasks take (their image-to-tensor step).
    static let maxSide = 32_767

    static func decode(_ bytes: Data, limits: ServerLimits, threads: TaskThreads? = nil) throws(ServerError) -> MPImage {
        guard !bytes.isEmpty else { throw ServerError(code: .badImage, message: "the image is empty") }
        guard bytes.count <= limits.maxImageBytes else {
            throw ServerError(
                code: .imageTooLarge, message: "the image has \(bytes.count) bytes; the limit is \(limits.maxImageBytes)")
        }
        func tooLarge(_ width: Int, _ height: Int) -> ServerError {
            ServerError(code: .imageTooLarge, message: "the image is \(width)x\(height) pixels; the limit is \(limits.maxImagePixels) pixels")
        }
        func tooWide(_ width: Int, _ height: Int) -> ServerError {
            ServerError(code: .imageTooLarge, message: "the image is \(width)x\(height) pixels; the tasks take at most \(maxSide) pixels a side")
        }
        if let (width, height) = ImageHeader.dimensions(of: bytes) {
            let pixels = width.multipliedReportingOverflow(by: height)
            guard !pixels.overflow, pixels.partialValue <= limits.maxImagePixels else { throw tooLarge(width, height) }
            guard width <= maxSide, height <= maxSide else { throw tooWide(width, height) }
        }
        do {
            let pixels = try ImageDecoder.decode(bytes, source: "the image", maxPixels: limits.maxImagePixels, threads: threads).pixels
            guard pixels.width <= maxSide, pixels.height <= maxSide else { throw tooWide(pixels.width, pixels.height) }
            return MPImage(pixelBuffer: pixels)
        } catch let error as ServerError {
            throw error
        } catch let error as MediaIOError {
            if case .image(.tooLarge(let width, let height)) = error.reason {
                let pixels = width.multipliedReportingOverflow(by: height)
                if !pixels.overflow, pixels.partialValue > limits.maxImagePixels { throw tooLarge(width, height) }
                throw ServerError(code: .imageTooLarge, message: error.description)
            }
            throw ServerError(code: .badImage, message: error.description)
        } catch {
            throw ServerError(code: .badImage, message: "the image cannot be decoded: \(error)")
        }
    }
}
