extension ImagePixels {
    /// Runs `body` with a view of an RGB8 or RGBA8 pixel buffer (such as the upright pixels
    /// `MPImage.uprightRGB()` returns). Other formats are refused: convert them first.
    package static func withPixels<R>(
        of buffer: PixelBuffer, _ body: (ImagePixels) throws -> R
    ) throws -> R {
        let channels: Int
        switch buffer.format {
        case .rgb8: channels = 3
        case .rgba8: channels = 4
        default:
            throw TasksError.invalidArgument(
                "Image-to-tensor needs RGB8 or RGBA8 pixels, got \(buffer.format).")
        }
        return try buffer.bytes.withUnsafeBytes { raw in
            try body(
                ImagePixels(
                    bytes: raw, width: buffer.width, height: buffer.height,
                    bytesPerRow: buffer.bytesPerRow, channels: channels))
        }
    }
}
