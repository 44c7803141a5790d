/// Layouts of raw pixels as cameras and other libraries hand them over.
public enum PixelFormat: String, Sendable, CaseIterable, Codable {
    /// 8-bit red, green, blue, alpha.
    case rgba8
    /// 8-bit blue, green, red, alpha (iOS `kCVPixelFormatType_32BGRA`).
    case bgra8
    /// 8-bit red, green, blue.
    case rgb8
    /// 8-bit luminance.
    case gray8
    /// 4:2:0 bi-planar Y + interleaved CbCr, full range (iOS `420YpCbCr8BiPlanarFullRange`).
    case nv12FullRange
    /// 4:2:0 bi-planar Y + interleaved CbCr, video range (iOS `420YpCbCr8BiPlanarVideoRange`).
    case nv12VideoRange

    /// Bytes per pixel of the (first) plane.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8, .bgra8: return 4
        case .rgb8: return 3
        case .gray8, .nv12FullRange, .nv12VideoRange: return 1
        }
    }

    /// Whether the format has a second (CbCr) plane.
    public var isBiPlanar: Bool { self == .nv12FullRange || self == .nv12VideoRange }
}
