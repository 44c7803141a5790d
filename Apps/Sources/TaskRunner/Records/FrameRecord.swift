import Foundation

/// One result in the JSON form of the `vision-tasks` tool and the server's answers: where the
/// image came from and the task's result under the task's key (`gesture`, `hands`, `pose`), e.g.
/// `{"file": "a.jpg", "width": 640, "height": 480, "gesture": {"handedness": ..., ...}}`.
/// Keys without a value are left out.
public struct FrameRecord: Encodable, @unchecked Sendable {
    /// The input's path (nil for images without a file, such as a server request).
    public var file: String?
    /// The upright image's width in pixels.
    public var width: Int?
    /// The upright image's height in pixels.
    public var height: Int?
    /// The frame's index in a video.
    public var frame: Int?
    /// The frame's timestamp.
    public var timestampInMilliseconds: Int?
    /// The key the result is written under.
    public var resultKey: String
    /// The task's result: a `GestureRecognizerResult`, `HandLandmarkerResult` or `PoseRecord`.
    public var result: any Encodable

    /// A record from its parts.
    public init(
        file: String? = nil, width: Int? = nil, height: Int? = nil, frame: Int? = nil,
        timestampInMilliseconds: Int? = nil, resultKey: String, result: any Encodable
    ) {
        self.file = file
        self.width = width
        self.height = height
        self.frame = frame
        self.timestampInMilliseconds = timestampInMilliseconds
        self.resultKey = resultKey
        self.result = result
    }

    /// The encoder every record is written with: keys sorted, slashes not escaped.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }

    /// A coding key from any string (the result's key is chosen at run time).
    package struct Key: CodingKey {
        package var stringValue: String
        package var intValue: Int? { nil }
        package init(_ string: String) { stringValue = string }
        package init?(stringValue: String) { self.stringValue = stringValue }
        package init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(file, forKey: Key("file"))
        try container.encodeIfPresent(width, forKey: Key("width"))
        try container.encodeIfPresent(height, forKey: Key("height"))
        try container.encodeIfPresent(frame, forKey: Key("frame"))
        try container.encodeIfPresent(timestampInMilliseconds, forKey: Key("timestampInMilliseconds"))
        try result.encode(to: container.superEncoder(forKey: Key(resultKey)))
    }
}
