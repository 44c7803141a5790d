/// Which hand an observation is, as Vision's `VNChirality` (raw values too).
public enum VNChirality: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// Not known.
    case unknown = 0
    /// The person's left hand.
    case left = -1
    /// The person's right hand.
    case right = 1

    /// "left", "right" or "unknown".
    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .left: return "left"
        case .right: return "right"
        }
    }
}
