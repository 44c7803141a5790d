/// Why an `MPImage` cannot be used by a vision task.
package enum MPImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image has a mirrored orientation; MediaPipe's tasks accept only `.up`, `.down`,
    /// `.left` and `.right`.
    case unsupportedOrientation(ImageOrientation)

    package var description: String {
        switch self {
        case .unsupportedOrientation(let orientation):
            return "images with orientation \(orientation) are not supported: vision tasks accept"
                + " up, down, left and right (mirrored orientations are refused, as in MediaPipe)"
        }
    }
}
