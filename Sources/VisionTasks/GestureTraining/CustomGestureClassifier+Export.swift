import Foundation
import LiteInterpreter

extension CustomGestureClassifier {
    /// The metadata Model Maker writes into a custom gesture classifier.
    static let modelName = "HandGestureRecognition"
    static let modelDescription = "Recognize the hand gesture in the image."
    /// The score threshold Model Maker's export sets: MediaPipe reports a custom gesture only
    /// when it scores at least this, and otherwise the canned classifier's gesture.
    public static let defaultScoreThreshold: Float = 0.5

    /// The classifier as a TensorFlow Lite model, `custom_gesture_classifier.tflite` as Model
    /// Maker exports it: float32, batch normalisation folded into MUL and ADD (with ReLU fused),
    /// FULLY_CONNECTED for each dense layer, SOFTMAX; metadata naming the input `embedding` and
    /// the output `scores`, with the labels (`labels.txt`, tensor-axis labels) and the score
    /// threshold `scoreThreshold`. MediaPipe, LiteRT and `LiteInterpreter.Model` load it.
    public func classifierModel(scoreThreshold: Float = defaultScoreThreshold) throws -> [UInt8] {
        guard scoreThreshold.isFinite else {
            throw GestureTrainingError.invalidOption(name: "scoreThreshold", value: "\(scoreThreshold)", requirement: "a number, such as 0.5")
        }
        var builder = ModelBuilder()
        let input = builder.addTensor(name: "serving_default_hand_embedding:0", shape: [1, embeddingSize])
        var x = input
        for (index, block) in head.blocks.enumerated() {
            let last = index == head.blocks.count - 1
            let prefix = last ? "custom_gesture_recognizer_out" : "custom_gesture_recognizer_\(index)"
            let norm = index == 0 ? "batch_normalization" : "batch_normalization_\(index)"
            let width = block.dense.inputs
            let (scale, shift) = block.norm.folded
            let scaleTensor = try builder.addConstant(name: "\(norm)/batchnorm/mul", shape: [width], values: scale)
            let shiftTensor = try builder.addConstant(name: "\(norm)/batchnorm/sub", shape: [width], values: shift)
            let scaled = builder.addTensor(name: "\(norm)/batchnorm/mul_1", shape: [1, width])
            let activated = builder.addTensor(name: "re_lu_\(index)/Relu;\(norm)/batchnorm/add_1", shape: [1, width])
            builder.addOperator(.mul(), inputs: [x, scaleTensor], outputs: [scaled])
            builder.addOperator(.add(activation: .relu), inputs: [scaled, shiftTensor], outputs: [activated])
            let weights = try builder.addConstant(
                name: "\(prefix)/MatMul", shape: [block.dense.outputs, width], values: block.dense.weights)
            let bias = try builder.addConstant(name: "\(prefix)/BiasAdd", shape: [block.dense.outputs], values: block.dense.bias)
            let output = builder.addTensor(name: "\(prefix)/MatMul;\(prefix)/BiasAdd", shape: [1, block.dense.outputs])
            builder.addOperator(.fullyConnected(), inputs: [activated, weights, bias], outputs: [output])
            x = output
        }
        let scores = builder.addTensor(name: "scores", shape: [1, labels.count])
        builder.addOperator(.softmax(), inputs: [x], outputs: [scores])
        builder.inputs = [input]
        builder.outputs = [scores]
        builder.metadata = ModelMetadata(
            name: Self.modelName, description: Self.modelDescription, minParserVersion: "1.0.0",
            inputTensors: [TensorMetadata(
                name: "embedding", description: "Embedding feature vector from gesture embedder.", content: .features)],
            outputTensors: [TensorMetadata(
                name: "scores", description: "Hand gesture category scores.",
                associatedFiles: [AssociatedFile(
                    name: "labels.txt", description: "Labels for categories that the model can recognize.",
                    kind: .tensorAxisLabels)],
                scoreThreshold: scoreThreshold, content: .features, stats: TensorStats(max: [1], min: [0]))])
        builder.addAssociatedFile(name: "labels.txt", contents: Array(labels.joined(separator: "\n").utf8))
        do {
            return try builder.serialized()
        } catch {
            throw TasksError.internalError("The custom gesture classifier could not be written: \(error)")
        }
    }

    /// Writes `classifierModel(scoreThreshold:)` to `url` (atomically: an interrupted write
    /// leaves no partial file).
    public func exportClassifier(to url: URL, scoreThreshold: Float = defaultScoreThreshold) throws {
        try GestureFileWriter.write(try classifierModel(scoreThreshold: scoreThreshold), to: url)
    }

    /// The gesture recognizer bundle with this classifier, laid out as Model Maker's
    /// `export_model` lays it out: `hand_landmarker.task` and `hand_gesture_recognizer.task`
    /// (`gesture_embedder.tflite`, `canned_gesture_classifier.tflite`,
    /// `custom_gesture_classifier.tflite`), every member stored and 4-byte aligned. The hand
    /// landmarker, embedder and canned classifier are those of `baseModelPath`, the bundle the
    /// training embeddings were made with.
    /// - Throws: `GestureTrainingError.embeddingMismatch` when the base bundle's hand and
    ///   embedder models are not the ones the training data was embedded with; `TasksError`
    ///   for a missing or unusable base bundle.
    public func modelBundle(baseModelPath: String, scoreThreshold: Float = defaultScoreThreshold) throws -> [UInt8] {
        try modelBundle(baseOptions: BaseOptions(modelAssetPath: baseModelPath), scoreThreshold: scoreThreshold)
    }

    /// `modelBundle(baseModelPath:scoreThreshold:)` on the base bundle `baseOptions` names: a
    /// path, or bytes already in memory (`modelAssetBuffer`, as a server that read its bundle
    /// once holds it).
    public func modelBundle(baseOptions: BaseOptions, scoreThreshold: Float = defaultScoreThreshold) throws -> [UInt8] {
        let asset = try ModelAsset(baseOptions: baseOptions)
        let baseModelPath = asset.bundle.name
        let models = try GestureEmbedderIdentity.fingerprint(of: asset)
        if let trained = embedderIdentity?.models, trained != models {
            throw GestureTrainingError.embeddingMismatch(
                "\(baseModelPath) has other hand or embedder models (\(models)) than the bundle the training data was embedded with (\(trained)): export onto that bundle")
        }
        return try Self.modelBundle(asset: asset, customClassifier: try classifierModel(scoreThreshold: scoreThreshold))
    }

    /// A gesture recognizer bundle of the hand models, embedder and canned classifier of
    /// `asset` and the custom classifier `customClassifier` (a `custom_gesture_classifier.tflite`,
    /// not checked here: loading the bundle checks it). The server assembles a session's bundle
    /// from a classifier it keeps this way.
    @_spi(Apps) public static func modelBundle(asset: ModelAsset, customClassifier: [UInt8]) throws -> [UInt8] {
        let bundle = asset.bundle
        do {
            let handLandmarker: [UInt8]
            if bundle.hasMember(named: Self.handLandmarkerMember) {
                handLandmarker = try bundle.member(named: Self.handLandmarkerMember)
            } else {
                handLandmarker = try ZipArchiveWriter.archive([
                    .init(name: HandLandmarkerGraph.detectorMember, bytes: try bundle.member(named: HandLandmarkerGraph.detectorMember)),
                    .init(name: HandLandmarkerGraph.landmarksMember, bytes: try bundle.member(named: HandLandmarkerGraph.landmarksMember)),
                ])
            }
            let gestures = try ZipArchiveWriter.archive([
                .init(name: GestureEmbedderModel.member, bytes: try bundle.member(named: GestureEmbedderModel.member)),
                .init(
                    name: HandGestureRecognizerGraph.cannedClassifierMember,
                    bytes: try bundle.member(named: HandGestureRecognizerGraph.cannedClassifierMember)),
                .init(name: HandGestureRecognizerGraph.customClassifierMember, bytes: customClassifier),
            ])
            return try ZipArchiveWriter.archive([
                .init(name: Self.handLandmarkerMember, bytes: handLandmarker),
                .init(name: Self.gestureRecognizerMember, bytes: gestures),
            ])
        } catch let error as TaskBundleError {
            throw TasksError.invalidArgument("\(bundle.name) is not a usable gesture recognizer bundle: \(error)")
        } catch let error as ZipArchiveError {
            throw TasksError.internalError("The bundle could not be assembled: \(error)")
        }
    }

    /// The custom classifier (`custom_gesture_classifier.tflite`) of the gesture recognizer
    /// bundle `bundle`, which must embed hands with the same `gesture_embedder.tflite` as `base`
    /// (a classifier reads the embedder's numbers: another embedder's mean nothing to it).
    /// - Throws: `TasksError.invalidArgument` when `bundle` is not a task bundle, has no custom
    ///   classifier or embeds with another model.
    @_spi(Apps) public static func customClassifier(inBundle bundle: Data, name: String, embeddingLike base: ModelAsset) throws -> [UInt8] {
        let uploaded: TaskBundle
        do {
            uploaded = try TaskBundle(bytes: [UInt8](bundle), name: name)
        } catch {
            throw TasksError.invalidArgument("\(name) is not a task bundle (a zip archive of models): \(error)")
        }
        do {
            let embedder = try uploaded.member(named: GestureEmbedderModel.member)
            guard embedder == (try base.bundle.member(named: GestureEmbedderModel.member)) else {
                throw TasksError.invalidArgument(
                    "\(name) embeds hands with another \(GestureEmbedderModel.member) than this one's (\(embedder.count) bytes): its classifier reads numbers this embedder does not make")
            }
            return try uploaded.member(named: HandGestureRecognizerGraph.customClassifierMember)
        } catch let error as TaskBundleError {
            throw TasksError.invalidArgument("\(name) is not a gesture recognizer bundle with a custom classifier: \(error)")
        }
    }

    /// Writes `modelBundle(baseModelPath:scoreThreshold:)` to `url`: Model Maker's
    /// `export_model`. The file is written under a temporary name and renamed, so an
    /// interrupted export leaves no partial bundle.
    /// - Throws: `GestureTrainingError.outputOverwritesInput` when `url` is the base bundle
    ///   (the same file under any path), `.fileSystem` when it cannot be written, and the
    ///   errors of `modelBundle`.
    public func exportModel(to url: URL, baseModelPath: String, scoreThreshold: Float = defaultScoreThreshold) throws {
        if Self.isSameFile(url.path, baseModelPath) {
            throw GestureTrainingError.outputOverwritesInput(output: url.path, input: baseModelPath)
        }
        try GestureFileWriter.write(try modelBundle(baseModelPath: baseModelPath, scoreThreshold: scoreThreshold), to: url)
    }

    static let handLandmarkerMember = "hand_landmarker.task"
    static let gestureRecognizerMember = "hand_gesture_recognizer.task"

    /// Whether two paths name the same existing file (the same device and inode: links and
    /// `..` included).
    @_spi(Apps) public static func isSameFile(_ a: String, _ b: String) -> Bool {
        var first = stat(), second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }
}
