/// The state of one `ModelFile` in a model folder.
public enum ModelStatus: Sendable, Equatable, CustomStringConvertible {
    /// The file is not there.
    case missing
    /// The file is there and matches the install manifest (for an assembled bundle: every required
    /// member is present and matches).
    case installed
    /// A bundle that has every member the tasks need, as TensorFlow Lite models, but not the bytes
    /// `vision-tasks models install` would put there: typically Google's official `.task` file of the
    /// same name. It is used as is; `install` never replaces it.
    case userProvided
    /// The file is there but unusable (wrong checksum, truncated, a bundle lacking a member);
    /// `install` replaces it.
    case damaged(reason: String)

    /// Whether the tasks can use the file (`installed` or `userProvided`).
    public var isUsable: Bool {
        switch self {
        case .installed, .userProvided: return true
        case .missing, .damaged: return false
        }
    }

    public var description: String {
        switch self {
        case .missing: return "missing"
        case .installed: return "installed"
        case .userProvided: return "user-provided"
        case let .damaged(reason): return "damaged (\(reason))"
        }
    }
}
