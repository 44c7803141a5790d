/// One class of a classification result: a handedness ("Left"/"Right") or a gesture.
///
/// As MediaPipe's `ResultCategory`. `index` is the class index in the model's label list
/// (MediaPipe reports -1 for gestures, and so do we); `categoryName` is the label,
/// `displayName` its localised name from the model's metadata, or `nil` when it has none.
/// In JSON a missing name is written as `""`, as MediaPipe's own serialisations do.
public struct ResultCategory: Sendable, Hashable, Codable {
    /// The class's index in the model's label list (-1 for gestures, as in MediaPipe).
    public var index: Int
    /// The class's score, 0...1.
    public var score: Float
    /// The class's label ("Left", "Thumb_Up"), nil when the model has no labels.
    public var categoryName: String?
    /// The label's localised name from the model's metadata, nil when it has none.
    public var displayName: String?

    /// A category from its parts.
    public init(index: Int, score: Float, categoryName: String?, displayName: String?) {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }

    private enum CodingKeys: String, CodingKey { case index, score, categoryName, displayName }

    /// Decodes the JSON form (a missing or empty name is nil).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        index = try c.decode(Int.self, forKey: .index)
        score = try c.decode(Float.self, forKey: .score)
        let name = try c.decodeIfPresent(String.self, forKey: .categoryName) ?? ""
        let display = try c.decodeIfPresent(String.self, forKey: .displayName) ?? ""
        categoryName = name.isEmpty ? nil : name
        displayName = display.isEmpty ? nil : display
    }

    /// Encodes the JSON form (a nil name as `""`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(index, forKey: .index)
        try c.encode(score, forKey: .score)
        try c.encode(categoryName ?? "", forKey: .categoryName)
        try c.encode(displayName ?? "", forKey: .displayName)
    }
}
