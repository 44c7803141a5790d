import Foundation
import TaskRunner
import VisionTasks

/// The JSON answer to one processed live frame: the CLI's record (`width`, `height`,
/// `timestampInMilliseconds` and the result under the task's key), then the session's figures.
///
///     {"type": "result", "task": "gesture", "frame": 12, "timestampInMilliseconds": 4012,
///      "width": 640, "height": 480, "gesture": {...}, "handIdentifiers": [3],
///      "events": [{"event": "thumbsUp", "hand": 3, "handedness": "Right", "timestampInMilliseconds": 4012}],
///      "processingMilliseconds": 31.2, "droppedFrames": 3}
///
/// Pose sessions carry `poseIdentifiers` instead, and no events; with a workout, also
/// `classifications`: per pose, ML Kit's classification, smoothed, and the repetition counts
/// (`TrackedPoseClassification`, as `vision-tasks pose --classify` writes it).
struct LiveAnswer: Encodable {
    var task: TaskKind
    /// The frame's number in the session (1 for the first processed frame).
    var frame: Int
    var width: Int
    var height: Int
    var timestampInMilliseconds: Int
    var output: TaskOutput
    /// Decoding and running the task, in milliseconds.
    var processingMilliseconds: Double
    /// Frames of this session replaced by a newer one before they were processed, so far.
    var droppedFrames: Int
    /// The workout's classifications, per pose in the order of the landmarks (nil: no workout).
    var classifications: [TrackedPoseClassification]? = nil

    func encode(to encoder: any Encoder) throws {
        let record = FrameRecord(
            width: width, height: height, frame: frame, timestampInMilliseconds: timestampInMilliseconds,
            resultKey: task.rawValue, result: output.result)
        try record.encode(to: encoder)
        var c = encoder.container(keyedBy: FrameRecord.Key.self)
        try c.encode("result", forKey: .init("type"))
        try c.encode(task.rawValue, forKey: .init("task"))
        try c.encode((processingMilliseconds * 1000).rounded() / 1000, forKey: .init("processingMilliseconds"))
        try c.encode(droppedFrames, forKey: .init("droppedFrames"))
        if task == .pose {
            try c.encode(output.identifiers, forKey: .init("poseIdentifiers"))
            try c.encodeIfPresent(classifications, forKey: .init("classifications"))
        } else {
            try c.encode(output.identifiers, forKey: .init("handIdentifiers"))
            try c.encode(output.events, forKey: .init("events"))
        }
    }
}

/// The JSON a live session sends for an error (the session goes on unless it says `closing`).
struct LiveErrorAnswer: Encodable {
    var error: ServerError
    var timestampInMilliseconds: Int?

    private enum Keys: String, CodingKey { case type, error, timestampInMilliseconds }
    private enum ErrorKeys: String, CodingKey { case code, message }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("error", forKey: .type)
        var e = c.nestedContainer(keyedBy: ErrorKeys.self, forKey: .error)
        try e.encode(error.code, forKey: .code)
        try e.encode(error.message, forKey: .message)
        try c.encodeIfPresent(timestampInMilliseconds, forKey: .timestampInMilliseconds)
    }
}

/// Sent when a session starts and after each options message: the settings in force; the
/// first also names the replica (`instance`, as `X-Vision-Tasks-Instance` on HTTP answers).
struct LiveReadyAnswer: Encodable {
    var settings: TaskSettings
    var maxImageBytes: Int
    var maxImagePixels: Int
    /// The replica's name (`ServerConfiguration.instance`); nil after an options message.
    var instance: String? = nil

    private enum Keys: String, CodingKey {
        case type, instance, task, numHands, numPoses, minHandDetectionConfidence, minHandPresenceConfidence
        case minPoseDetectionConfidence, minPosePresenceConfidence, minTrackingConfidence, segmentationMasks
        case mirrored, smoothing
        case maxImageBytes, maxImagePixels
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("ready", forKey: .type)
        try c.encodeIfPresent(instance, forKey: .instance)
        try c.encode(settings.task.rawValue, forKey: .task)
        switch settings.task {
        case .gesture, .hands:
            try c.encode(settings.numHands, forKey: .numHands)
            try c.encode(settings.minHandDetectionConfidence, forKey: .minHandDetectionConfidence)
            try c.encode(settings.minHandPresenceConfidence, forKey: .minHandPresenceConfidence)
            try c.encode(settings.mirrored, forKey: .mirrored)
            try c.encode(settings.smoothing, forKey: .smoothing)
        case .pose:
            try c.encode(settings.numPoses, forKey: .numPoses)
            try c.encode(settings.minPoseDetectionConfidence, forKey: .minPoseDetectionConfidence)
            try c.encode(settings.minPosePresenceConfidence, forKey: .minPosePresenceConfidence)
            try c.encode(settings.segmentationMasks, forKey: .segmentationMasks)
        }
        try c.encode(settings.minTrackingConfidence, forKey: .minTrackingConfidence)
        try c.encode(maxImageBytes, forKey: .maxImageBytes)
        try c.encode(maxImagePixels, forKey: .maxImagePixels)
    }
}

/// Sent after each workout message: what the session now classifies and counts, e.g.
/// `{"type": "workout", "active": true, "classes": ["squats_down", "squats_up"],
/// "sampleCounts": {"squats_down": 21, "squats_up": 24}, "countedClasses": ["squats_down"],
/// "confidenceRange": 10}`; `{"type": "workout", "active": false}` after a stop.
struct LiveWorkoutAnswer: Encodable {
    /// The session's tracker (nil: no workout).
    var tracker: PoseClassificationTracker?

    private enum Keys: String, CodingKey {
        case type, active, classes, sampleCounts, countedClasses, confidenceRange
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("workout", forKey: .type)
        try c.encode(tracker != nil, forKey: .active)
        guard let tracker else { return }
        try c.encode(tracker.classifier.classNames, forKey: .classes)
        try c.encode(tracker.classifier.sampleCounts, forKey: .sampleCounts)
        try c.encode(tracker.countedClasses, forKey: .countedClasses)
        try c.encode(tracker.classifier.confidenceRange, forKey: .confidenceRange)
    }
}
