import Foundation

/// What was wrong with pose samples (an ML Kit samples CSV, or samples built in code) or with
/// the settings of pose classification and repetition counting. Each case says where: the CSV
/// line (1-based), the sample's index, or the class.
public enum PoseClassificationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A CSV line does not have the 101 columns of a sample: name, class, then x, y, z of the
    /// 33 landmarks.
    case wrongColumnCount(line: Int, found: Int)
    /// A CSV coordinate is not a number. `column` is 1-based (3 is the first landmark's x).
    case notANumber(line: Int, column: Int, text: String)
    /// A CSV coordinate is NaN or infinite (or too large for a `Float`).
    case notFinite(line: Int, column: Int, text: String)
    /// A CSV line has an empty class name.
    case emptyClassName(line: Int)
    /// A CSV line is not UTF-8 text.
    case notText(line: Int)
    /// The CSV is larger than the loader's `maximumBytes`.
    case tooLarge(bytes: Int, limit: Int)
    /// The CSV holds more samples than the loader's `maximumSamples`.
    case tooManySamples(limit: Int)
    /// A sample whose landmarks give no pose size (all at one point) or whose embedding is not
    /// finite (coordinates so large that the arithmetic overflows). `line` is the CSV line, nil
    /// for a sample built in code.
    case degeneratePose(line: Int?, name: String)
    /// A samples file that cannot be read.
    case cannotRead(path: String, reason: String)
    /// A sample built in code with an empty class name, other than 33 landmarks, or a
    /// coordinate that is not finite.
    case invalidSample(name: String, reason: String)
    /// No samples at all (an empty CSV or list).
    case noSamples
    /// Every sample is of the same class: there is nothing to tell it from.
    case oneClassOnly(String)
    /// Fewer samples than the classifier's vote needs (`PoseClassifier.confidenceRange`).
    case fewerSamplesThanK(count: Int, k: Int)
    /// A class to count that no sample has.
    case unknownClass(String, known: [String])
    /// A class to count whose confidence can never rise above the enter threshold: it has too
    /// few samples (or the classifier's vote is too small).
    case unreachableThreshold(className: String, maximumConfidence: Int, enterThreshold: Float)
    /// Options that no classifier, smoothing or counter can use.
    case invalidOptions(String)

    /// What was wrong, in a sentence.
    public var description: String {
        switch self {
        case let .wrongColumnCount(line, found):
            return "line \(line): \(found) column\(found == 1 ? "" : "s"); a pose sample has 101 "
                + "(name, class, then x, y, z of the 33 landmarks)"
        case let .notANumber(line, column, text):
            return "line \(line), column \(column): \(Self.quoted(text)) is not a number"
        case let .notFinite(line, column, text):
            return "line \(line), column \(column): \(Self.quoted(text)) is not a finite coordinate"
        case let .emptyClassName(line):
            return "line \(line): the class name (column 2) is empty"
        case let .notText(line):
            return "line \(line): not UTF-8 text"
        case let .tooLarge(bytes, limit):
            return "the samples CSV is larger than the limit of \(limit) bytes (\(bytes) bytes or more)"
        case let .tooManySamples(limit):
            return "the samples CSV holds more than \(limit) samples (the limit)"
        case let .degeneratePose(line, name):
            let place = line.map { "line \($0)" } ?? "pose sample \(Self.quoted(name))"
            return "\(place): the landmarks give no usable pose (all at one point, or too large to scale)"
        case let .cannotRead(path, reason):
            return "\(path): \(reason)"
        case let .invalidSample(name, reason):
            return "pose sample \(Self.quoted(name)): \(reason)"
        case .noSamples:
            return "no pose samples"
        case let .oneClassOnly(name):
            return "every pose sample is of class \(Self.quoted(name)); a classifier needs samples of at least two classes"
        case let .fewerSamplesThanK(count, k):
            return "\(count) pose sample\(count == 1 ? "" : "s"), fewer than the \(k) nearest neighbours the classifier votes with"
        case let .unknownClass(name, known):
            return "no pose sample has class \(Self.quoted(name)); the samples' classes are "
                + known.map(Self.quoted).joined(separator: ", ")
        case let .unreachableThreshold(name, maximum, threshold):
            return "class \(Self.quoted(name)) can reach a confidence of \(maximum) at most (its samples, or the "
                + "classifier's vote), never above the enter threshold \(Self.number(threshold)): add samples of it"
        case let .invalidOptions(message):
            return message
        }
    }

    /// The same as `description`.
    public var errorDescription: String? { description }

    private static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "..." : text
        return "\"\(shown)\""
    }

    private static func number(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e6 ? String(Int(value)) : "\(value)"
    }
}
