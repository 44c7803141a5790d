import Foundation
import VisionTasks

/// The JSON a live session sends about teaching: `type` `teach` and an `event`, with the
/// samples recorded so far per label (`samples`), the kept classifiers (`models`) and the one
/// the session runs (`using`, null for the server's own bundle).
///
///     {"type": "teach", "event": "recording", "label": "wave", "samples": {"wave": 0}, ...}
///     {"type": "teach", "event": "sample", "label": "wave", "samples": {"wave": 14}, ...}
///     {"type": "teach", "event": "stopped", "reason": "...", ...}     (reason when the server stopped)
///     {"type": "teach", "event": "cleared", ...}
///     {"type": "teach", "event": "trained", "name": "mine", "labels": ["none", "wave"],
///      "trainingSamples": 48, "testSamples": 12, "accuracy": 1, "confusionMatrix": [[6, 0], [0, 6]],
///      "epochs": 10, "trainingMilliseconds": 41.5, "dropped": [], "using": "mine", ...}
///     {"type": "teach", "event": "using", "using": "mine", ...}
///     {"type": "teach", "event": "bundle", "label": "mine", "bytes": 8123456, ...}
///                                              (the bundle follows as one binary message)
///     {"type": "teach", "event": "receiving", "label": "theirs", "bytes": 8454831, ...}
///                                              (the next binary messages are the bundle's bytes)
///     {"type": "teach", "event": "uploaded", "name": "theirs", "labels": ["none", "rock"],
///      "bytes": 8495, "dropped": [], "using": "theirs", ...}   (bytes: the classifier kept)
struct TeachAnswer: Encodable {
    var event: String
    var label: String?
    var reason: String?
    var samples: [String: Int]
    var models: [String]
    var using: String?
    /// A `trained` answer's classifier and figures (its labels are its evaluation's).
    var training: GestureTeacher.Trained?
    /// A `bundle` answer's size in bytes: that of the binary message that follows it (for
    /// `receiving`, the size expected; for `uploaded`, the kept classifier's).
    var bytes: Int? = nil
    /// An `uploaded` answer's classifier: its name, its labels and the classifiers dropped to
    /// keep it.
    var uploaded: (name: String, labels: [String], dropped: [String])? = nil

    private enum Keys: String, CodingKey {
        case type, event, label, reason, samples, models, using, bytes
        case name, labels, trainingSamples, testSamples, accuracy, confusionMatrix, epochs, trainingMilliseconds, dropped
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode("teach", forKey: .type)
        try c.encode(event, forKey: .event)
        try c.encodeIfPresent(label, forKey: .label)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encode(samples, forKey: .samples)
        try c.encode(models, forKey: .models)
        if let using { try c.encode(using, forKey: .using) } else { try c.encodeNil(forKey: .using) }
        try c.encodeIfPresent(bytes, forKey: .bytes)
        if let training {
            try c.encode(training.name, forKey: .name)
            try c.encode(training.evaluation.labels, forKey: .labels)
            try c.encode(training.trainingSamples, forKey: .trainingSamples)
            try c.encode(training.testSamples, forKey: .testSamples)
            try c.encode(training.evaluation.accuracy, forKey: .accuracy)
            try c.encode(training.evaluation.confusionMatrix, forKey: .confusionMatrix)
            try c.encode(training.epochs, forKey: .epochs)
            try c.encode((training.trainingMilliseconds * 1000).rounded() / 1000, forKey: .trainingMilliseconds)
            try c.encode(training.dropped, forKey: .dropped)
        } else if let uploaded {
            try c.encode(uploaded.name, forKey: .name)
            try c.encode(uploaded.labels, forKey: .labels)
            try c.encode(uploaded.dropped, forKey: .dropped)
        }
    }
}
