/// One training example: a hand's gesture embedding and its label.
public struct GestureSample: Sendable, Equatable {
    /// The gesture's name (the label folder's name, for a folder dataset).
    public var label: String
    /// The hand's gesture embedding (`GestureEmbedder`).
    public var embedding: [Float]
    /// Where the hand was seen: the file's path inside the dataset folder, or what the caller
    /// named it; nil when not said.
    public var source: String?
    /// For a video frame, its time in the video.
    public var timestampInMilliseconds: Int?

    /// A sample from its parts.
    public init(label: String, embedding: [Float], source: String? = nil, timestampInMilliseconds: Int? = nil) {
        self.label = label
        self.embedding = embedding
        self.source = source
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
