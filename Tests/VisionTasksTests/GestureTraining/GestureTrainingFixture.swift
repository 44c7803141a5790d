import Foundation
import MediaIO
import TestSupport
import VisionTasks

/// `GestureTrainingData`'s folder, read once per test run with the reference bundle's models and
/// shared by the gesture training tests.
enum GestureTrainingFixture {
    static let photos = GestureTrainingData.photos
    static let clipName = GestureTrainingData.clipName

    static func baseModel() throws -> String { try GestureTrainingData.referenceBundle() }
    static func temporaryFolder(_ name: String) throws -> URL { try GestureTrainingData.temporaryFolder(name) }

    private static let sharedEmbedder = Result { try GestureEmbedder(modelPath: try baseModel()) }
    private static let sharedFolder = Result { try GestureTrainingData.makeFolder() }
    private static let sharedDataset = Result {
        try GestureDataset(folder: try sharedFolder.get(), embedder: try sharedEmbedder.get())
    }

    static func embedder() throws -> GestureEmbedder { try sharedEmbedder.get() }
    static func folder() throws -> URL { try sharedFolder.get() }
    static func dataset() throws -> GestureDataset { try sharedDataset.get() }

    /// The options the tests train the fixture with: more epochs at a higher rate than Model
    /// Maker's defaults, as a dataset of 14 samples needs (7 steps an epoch).
    static var trainingOptions: GestureTrainingOptions {
        var options = GestureTrainingOptions()
        options.hyperparameters.epochs = 100
        options.hyperparameters.learningRate = 0.01
        return options
    }

    /// A classifier trained on the fixture, exported onto the base bundle as `name` in `folder`.
    static func trainedBundle(named name: String, in folder: URL) throws -> (CustomGestureClassifier, URL) {
        let classifier = try CustomGestureClassifier.train(trainData: try dataset(), options: trainingOptions)
        let bundle = folder.appendingPathComponent(name)
        try classifier.exportModel(to: bundle, baseModelPath: try baseModel())
        return (classifier, bundle)
    }
}
