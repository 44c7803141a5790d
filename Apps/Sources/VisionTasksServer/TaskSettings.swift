import Foundation
import HummingbirdCore
import VisionTasks

/// The task and MediaPipe options of a live session or an HTTP request, from query parameters
/// (`?task=gesture&numHands=2`) or a live session's options message (`{"numHands": 2}`). Names
/// are MediaPipe's; defaults are MediaPipe's. Unknown names and out-of-range values are errors.
struct TaskSettings: Sendable, Hashable {
    var task: TaskKind
    var numHands = 1
    var minHandDetectionConfidence: Float = 0.5
    var minHandPresenceConfidence: Float = 0.5
    var numPoses = 1
    var minPoseDetectionConfidence: Float = 0.5
    var minPosePresenceConfidence: Float = 0.5
    var minTrackingConfidence: Float = 0.5
    /// Pose only: compute segmentation masks (answers carry their summaries).
    var segmentationMasks = false
    /// Hands: the frames are mirrored (a selfie camera that flips them): handedness is the
    /// hand's real side and swipe directions follow the user's view (`inputIsMirrored`).
    var mirrored = false
    /// Hands: smooth the landmarks over time (`HandLandmarkSmoothing` with its defaults).
    var smoothing = false

    /// The most hands or poses one request may ask for (bounds the work per frame).
    static let maxCount = 4

    static let names = [
        "task", "numHands", "minHandDetectionConfidence", "minHandPresenceConfidence", "numPoses",
        "minPoseDetectionConfidence", "minPosePresenceConfidence", "minTrackingConfidence", "segmentationMasks",
        "mirrored", "smoothing",
    ]

    /// The options of hand tasks (`gesture`, `hands`).
    static let handNames: Set<String> = [
        "numHands", "minHandDetectionConfidence", "minHandPresenceConfidence", "minTrackingConfidence", "mirrored", "smoothing",
    ]
    /// The options of `pose`.
    static let poseNames: Set<String> = [
        "numPoses", "minPoseDetectionConfidence", "minPosePresenceConfidence", "minTrackingConfidence", "segmentationMasks",
    ]
    /// Options that act over time only (live sessions), refused on HTTP requests, which run in
    /// image mode: `smoothing` smooths landmarks from frame to frame.
    static let liveOnlyNames: Set<String> = ["smoothing"]

    /// The option names that do something for `task`, live or in a single image.
    static func names(for task: TaskKind, live: Bool) -> [String] {
        let names = task == .pose ? poseNames : handNames
        return Self.names.filter { $0 == "task" || (names.contains($0) && (live || !liveOnlyNames.contains($0))) }
    }

    /// Applies `name=value` pairs in order on top of `self`; then every name given must be an
    /// option of the resulting task (`badOption` for `numPoses` on a gesture request, or
    /// `smoothing` on an HTTP request, which would do nothing).
    func applying(_ pairs: [(String, String)], live: Bool = true) throws(ServerError) -> TaskSettings {
        var settings = self
        for (name, value) in pairs {
            try settings.set(name, value)
        }
        let valid = Self.names(for: settings.task, live: live)
        for (name, _) in pairs where !valid.contains(name) {
            throw ServerError(
                code: .badOption,
                message: "\(name) does nothing for \(settings.task.rawValue)\(live ? "" : " requests (image mode)"); its options are \(valid.joined(separator: ", "))")
        }
        return settings
    }

    /// Applies the options of a URL's query (`?task=pose&numPoses=2`) in order on top of
    /// `self`: names and values percent-decoded (`badOption` when that fails); parameters
    /// named in `ignoring` are skipped; `live: false` for an HTTP request (image mode).
    func applying(query uri: URI, ignoring: Set<String> = [], live: Bool = true) throws(ServerError) -> TaskSettings {
        try applying(try Self.queryPairs(uri.query ?? "").filter { !ignoring.contains($0.0) }, live: live)
    }

    /// `name=value` pairs of a query string, both percent-decoded (`+` is a plus sign, as in a
    /// path; a space is `%20`). An empty part is skipped; a name without `=` has an empty value.
    static func queryPairs(_ query: String) throws(ServerError) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = pieces[0].removingPercentEncoding,
                let value = (pieces.count > 1 ? pieces[1] : "").removingPercentEncoding
            else {
                throw ServerError(code: .badOption, message: "the query part '\(part.prefix(100))' is not percent-encoded properly")
            }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Applies a live session's options message: a JSON object of names to numbers, booleans
    /// or strings.
    func applying(json text: String) throws(ServerError) -> TaskSettings {
        let values: [String: JSONScalar]
        do {
            values = try JSONDecoder().decode([String: JSONScalar].self, from: Data(text.utf8))
        } catch {
            throw ServerError(
                code: .badMessage,
                message: "a text message must be a JSON object of options, e.g. {\"numHands\": 2}; frames are binary messages")
        }
        return try applying(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value.text) })
    }

    private mutating func set(_ name: String, _ value: String) throws(ServerError) {
        switch name {
        case "task":
            guard let kind = TaskKind(rawValue: value) else {
                throw ServerError(code: .badOption, message: "task must be gesture, hands or pose, not '\(value)'")
            }
            task = kind
        case "numHands": numHands = try Self.count(name, value)
        case "numPoses": numPoses = try Self.count(name, value)
        case "minHandDetectionConfidence": minHandDetectionConfidence = try Self.confidence(name, value)
        case "minHandPresenceConfidence": minHandPresenceConfidence = try Self.confidence(name, value)
        case "minPoseDetectionConfidence": minPoseDetectionConfidence = try Self.confidence(name, value)
        case "minPosePresenceConfidence": minPosePresenceConfidence = try Self.confidence(name, value)
        case "minTrackingConfidence": minTrackingConfidence = try Self.confidence(name, value)
        case "segmentationMasks": segmentationMasks = try Self.flag(name, value)
        case "mirrored": mirrored = try Self.flag(name, value)
        case "smoothing": smoothing = try Self.flag(name, value)
        default:
            throw ServerError(
                code: .badOption, message: "unknown option '\(name)'; the options are \(Self.names.joined(separator: ", "))")
        }
    }

    private static func count(_ name: String, _ value: String) throws(ServerError) -> Int {
        guard let n = Int(value), (1...maxCount).contains(n) else {
            throw ServerError(code: .badOption, message: "\(name) must be a whole number from 1 to \(maxCount), not '\(value)'")
        }
        return n
    }

    private static func flag(_ name: String, _ value: String) throws(ServerError) -> Bool {
        guard let flag = Bool(value) else {
            throw ServerError(code: .badOption, message: "\(name) must be true or false, not '\(value)'")
        }
        return flag
    }

    private static func confidence(_ name: String, _ value: String) throws(ServerError) -> Float {
        // Checked as a Double: parsed as a Float, 1.0000000000000004 rounded to 1 and passed.
        guard let x = Double(value), x >= 0, x <= 1 else {
            throw ServerError(code: .badOption, message: "\(name) must be a number from 0 to 1, not '\(value)'")
        }
        return Float(x)
    }
}

/// A JSON number, boolean or string, as text for `TaskSettings`.
private enum JSONScalar: Decodable {
    case bool(Bool)
    case number(Double)
    case string(String)

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    var text: String {
        switch self {
        case .bool(let b): return String(b)
        case .number(let d): return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .string(let s): return s
        }
    }
}
