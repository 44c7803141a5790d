import Foundation

/// Why a gesture dataset could not be read, or a classifier not trained, evaluated or exported.
/// Each case's `description` says what was wrong and what to do about it.
public enum GestureTrainingError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The dataset folder does not exist or is not a folder.
    case notAFolder(path: String)
    /// The dataset folder holds no label folders.
    case emptyFolder(path: String)
    /// A label folder's name cannot be a label: not valid UTF-8, empty, or with a line break
    /// (labels are stored one per line). `name` shows invalid bytes escaped.
    case invalidLabel(name: String, reason: String)
    /// No label is called `none` (in any case): Model Maker's layout needs one, for hands that
    /// show none of the gestures.
    case missingNoneLabel(labels: [String])
    /// More than one label is called `none` in some case (`none` and `None`).
    case duplicateNoneLabel(labels: [String])
    /// Fewer than two labels: a classifier needs `none` and at least one gesture.
    case tooFewLabels(labels: [String])
    /// A label folder holds no image or video.
    case labelWithoutMedia(label: String, folder: String)
    /// A label has no sample to train on: no hand was found in any of its images and frames.
    case labelWithoutSamples(label: String, withoutHand: Int, unreadable: Int)
    /// An option training cannot use.
    case invalidOption(name: String, value: String, requirement: String)
    /// The training set is smaller than one batch.
    case batchSizeTooLarge(batchSize: Int, trainingSamples: Int)
    /// Embeddings that do not belong together, or do not belong to the bundle they are used
    /// with: made by another embedder or hand models, or of another size.
    case embeddingMismatch(String)
    /// The output would replace one of the inputs it is made from.
    case outputOverwritesInput(output: String, input: String)
    /// A dataset file (`GestureDataset.write(to:)`) that cannot be read back.
    case invalidDatasetFile(path: String, reason: String)
    /// A file could not be written.
    case fileSystem(path: String, reason: String)

    /// What was wrong and what to do, in a sentence.
    public var description: String {
        switch self {
        case let .notAFolder(path):
            return "\(path) is not a folder: give a folder with one subfolder per label (DIR/none/*.jpg, DIR/wave/*.jpg, ...)"
        case let .emptyFolder(path):
            return "\(path) holds no label folders: put the images of each gesture in a subfolder named after it, and hands that show none of them in a subfolder named none"
        case let .invalidLabel(name, reason):
            return "the label folder \(name) \(reason): rename it"
        case let .missingNoneLabel(labels):
            return "no label folder is named none (found: \(labels.joined(separator: ", "))): add a folder named none with images of hands that show none of your gestures"
        case let .duplicateNoneLabel(labels):
            return "more than one label folder is named none (\(labels.joined(separator: ", "))): merge them into one"
        case let .tooFewLabels(labels):
            return "only one label (\(labels.joined(separator: ", "))): add a folder for at least one gesture beside none"
        case let .labelWithoutMedia(label, folder):
            return "the label folder \(folder) holds no images or videos: add some for \(label), or remove the folder"
        case let .labelWithoutSamples(label, withoutHand, unreadable) where withoutHand + unreadable == 0:
            return "label \(label) has no samples in the training data: add images of it"
        case let .labelWithoutSamples(label, withoutHand, unreadable):
            var detail = "no hand was found in any of its \(withoutHand) images and frames"
            if unreadable > 0 { detail += " (and \(unreadable) files could not be read)" }
            return "label \(label) has nothing to train on: \(detail); use images where the hand is large and clearly visible, or lower the minimum hand detection confidence"
        case let .invalidOption(name, value, requirement):
            return "\(name) is \(value), but must be \(requirement)"
        case let .batchSizeTooLarge(batchSize, trainingSamples):
            return "the training set has \(trainingSamples) samples, fewer than the batch size \(batchSize): lower the batch size or add samples"
        case let .embeddingMismatch(detail):
            return detail
        case let .outputOverwritesInput(output, input):
            return "\(output) would overwrite \(input), which it is made from: write the bundle to another path"
        case let .invalidDatasetFile(path, reason):
            return "\(path) is not a usable gesture dataset file: \(reason)"
        case let .fileSystem(path, reason):
            return "cannot write \(path): \(reason)"
        }
    }

    /// The description.
    public var errorDescription: String? { description }
}
