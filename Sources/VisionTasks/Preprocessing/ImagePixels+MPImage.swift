extension ImagePixels {
    /// Runs `body` with a view of the upright RGB pixels of a task's input image: how every
    /// task reads its input. A mirrored orientation is `TasksError.invalidArgument`, as in
    /// MediaPipe.
    package static func withUprightPixels<R>(of image: MPImage, _ body: (ImagePixels) throws -> R) throws -> R {
        let pixels: PixelBuffer
        do {
            pixels = try image.uprightRGB()
        } catch let error as MPImageError {
            throw TasksError.invalidArgument(error.description)
        }
        return try withPixels(of: pixels, body)
    }
}
