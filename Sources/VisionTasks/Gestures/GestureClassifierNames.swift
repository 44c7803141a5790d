import LiteInterpreter

/// The class names of a gesture recognizer bundle's classifiers, read without creating a task:
/// what allow and deny lists can match. MediaPipe ignores a listed name that no class has, so a
/// typo filters nothing without a word; the command line reads these names to warn about such
/// names, for the canned and the custom classifier alike.
@_spi(Apps) public struct GestureClassifierNames: Sendable, Equatable {
    /// The canned classifier's class names: its metadata labels, or the canned gesture names
    /// when it carries none (as `GestureRecognizer` names them).
    public let canned: [String]
    /// The custom classifier's labels: nil when the bundle has no custom classifier, empty when
    /// it has one without labels (lists for it are then refused when the task is created).
    public let custom: [String]?

    /// Names given as they are (for tests and callers that know them).
    package init(canned: [String], custom: [String]?) {
        self.canned = canned
        self.custom = custom
    }

    /// The names in the bundle `baseOptions` names. Throws the `TasksError` creating a
    /// `GestureRecognizer` from the same bundle would throw for a missing or unusable file or
    /// classifier.
    public init(baseOptions: BaseOptions) throws {
        let asset = try ModelAsset(baseOptions: baseOptions)
        let cannedModel = try asset.model(named: HandGestureRecognizerGraph.cannedClassifierMember)
        canned = try Self.labels(of: cannedModel) ?? CannedGesture.allCases.map(\.rawValue)
        do {
            let customModel = try asset.model(named: HandGestureRecognizerGraph.customClassifierMember)
            custom = try Self.labels(of: customModel) ?? []
        } catch TasksError.notFound {
            custom = nil
        }
    }

    /// The labels of a custom classifier given as its `.tflite` bytes (an uploaded one, before
    /// any bundle holds it): empty when it has none. Throws `TasksError.invalidArgument` when the
    /// bytes are not a usable model.
    public static func labels(ofClassifier bytes: [UInt8]) throws -> [String] {
        let model: Model
        do {
            model = try Model(bytes: bytes)
        } catch {
            throw TasksError.invalidArgument("\(HandGestureRecognizerGraph.customClassifierMember) is not a usable model: \(error)")
        }
        return try labels(of: model) ?? []
    }

    /// The labels of a classifier's score output, nil when it has none.
    private static func labels(of model: Model) throws -> [String]? {
        try ClassificationLabels(model: model, outputIndex: 0, locale: "en")?.names
    }

    /// The names in `list` that are not in `known`, in their order (each once).
    public static func unknown(_ list: [String], known: [String]) -> [String] {
        let knownSet = Set(known)
        var seen: Set<String> = []
        return list.filter { !knownSet.contains($0) && seen.insert($0).inserted }
    }
}
