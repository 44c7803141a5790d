import Foundation
import VisionTasks

/// A live pose session's workout message: ML Kit's pose classification and repetition counting
/// switched on with the user's samples, its counts reset, or switched off. Sent as a text message
/// holding one key, `workout`:
///
///     {"workout": {"samples": "name,class,x1,y1,z1,...\n...", "count": ["squats_down"]}}
///     {"workout": {"reset": true}}
///     {"workout": {"stop": true}}
///
/// `samples` is ML Kit's samples CSV (`name,class,x1,y1,z1,...,x33,y33,z33`, pixel coordinates;
/// what `vision-tasks pose samples` writes and the demo page records); `count` names the classes
/// whose repetitions are counted (default: every class with enough samples). The classifier,
/// smoothing and counter have ML Kit's defaults (`PoseClassificationTracker`).
enum WorkoutRequest: Sendable {
    /// Classify and count with these samples (a new tracker: counts start at zero).
    case start(samples: [PoseSample], count: [String]?)
    /// Counts back to zero, the samples kept.
    case reset
    /// No more classification.
    case stop

    /// The message's key.
    static let key = "workout"

    static let forms = "{\"samples\": CSV, \"count\": [CLASS, ...]}, {\"reset\": true} or {\"stop\": true}"

    /// The request in a text message whose JSON object has the key `workout`. Throws
    /// `badMessage` for a message that is not one of the three forms, `badSamples` for samples
    /// ML Kit's CSV reader refuses (the message names the line) or more than
    /// `limits.maxSamplesBytes` of them.
    init(text: String, limits: ServerLimits) throws(ServerError) {
        let message: Envelope
        do {
            message = try JSONDecoder().decode(Envelope.self, from: Data(text.utf8))
        } catch {
            throw ServerError(code: .badMessage, message: "a workout message is {\"workout\": \(Self.forms)}, alone (\(Self.reason(error)))")
        }
        let body = message.workout
        switch (body.samples, body.count, body.reset, body.stop) {
        case (nil, nil, true?, nil): self = .reset
        case (nil, nil, nil, true?): self = .stop
        case (let csv?, let count, nil, nil):
            if let count, count.isEmpty || count.contains(where: \.isEmpty) {
                throw ServerError(code: .badMessage, message: "workout's count must name classes, e.g. [\"squats_down\"]")
            }
            var csvLimits = PoseSample.CSVLimits()
            csvLimits.maximumBytes = limits.maxSamplesBytes
            do {
                self = .start(samples: try PoseSample.samples(csv: Data(csv.utf8), limits: csvLimits), count: count)
            } catch {
                throw ServerError(code: .badSamples, message: "the workout's samples cannot be used: \(error)")
            }
        default:
            throw ServerError(code: .badMessage, message: "workout must be one of \(Self.forms)")
        }
    }

    /// A tracker for `.start`: the samples' classifier with ML Kit's defaults, counting `count`.
    /// Throws `badSamples` for samples the classifier refuses (one class only, fewer than 10,
    /// a pose without a body) and a counted class the samples lack or have too few of.
    static func makeTracker(samples: [PoseSample], count: [String]?) throws(ServerError) -> PoseClassificationTracker {
        do {
            var options = PoseClassificationTrackerOptions()
            options.countedClasses = count
            return try PoseClassificationTracker(classifier: PoseClassifier(samples: samples), options: options)
        } catch {
            throw ServerError(code: .badSamples, message: "the workout's samples cannot be used: \(error)")
        }
    }

    /// What the decoder found wrong, in a few words.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case let error as UnknownKey: return "unknown key \(error.name)"
        default: return "not JSON"
        }
    }

    private struct UnknownKey: Error { var name: String }

    /// `{"workout": Body}` and no other key.
    private struct Envelope: Decodable {
        var workout: Body

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: JSONKey.self)
            if let other = c.allKeys.first(where: { $0.stringValue != WorkoutRequest.key }) { throw UnknownKey(name: other.stringValue) }
            workout = try c.decode(Body.self, forKey: JSONKey(stringValue: WorkoutRequest.key))
        }
    }

    private struct Body: Decodable {
        var samples: String?
        var count: [String]?
        var reset: Bool?
        var stop: Bool?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: JSONKey.self)
            let known = ["samples", "count", "reset", "stop"]
            if let other = c.allKeys.first(where: { !known.contains($0.stringValue) }) { throw UnknownKey(name: other.stringValue) }
            samples = try c.decodeIfPresent(String.self, forKey: JSONKey(stringValue: "samples"))
            count = try c.decodeIfPresent([String].self, forKey: JSONKey(stringValue: "count"))
            reset = try c.decodeIfPresent(Bool.self, forKey: JSONKey(stringValue: "reset"))
            stop = try c.decodeIfPresent(Bool.self, forKey: JSONKey(stringValue: "stop"))
        }
    }
}
