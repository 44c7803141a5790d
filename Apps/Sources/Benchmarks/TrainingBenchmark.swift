import Foundation
import MediaIO
import VisionTasks

/// Section "training": custom gesture training, timed piece by piece and whole.
///
/// - embedding per image: `GestureEmbedder.embedding(of:)` (the hand landmarker with Model
///   Maker's settings, then the gesture embedder) on the shared hand photos, at each thread count;
/// - training per epoch and per 10 epochs on 1,000 samples (Model Maker's defaults: batch size 2,
///   no hidden layer): the shared photos' embeddings, repeated with small random changes to
///   1,000 samples; training runs on one thread;
/// - the whole of `vision-tasks gesture train` on a folder made from the shared media (the hand
///   photos by the gesture their names say, the hand videos at 5 frames per second): scanning,
///   embedding, splitting, training, evaluating and writing the bundle.
///
/// There is no reference to compare with: Model Maker needs TensorFlow, which this benchmark
/// does not install.
struct TrainingBenchmark {
    let options: BenchmarkOptions

    /// The shared hand photos by the label their names give (new names for canned gestures).
    static let labels: [(prefix: String, label: String)] = [
        ("hand_thumb_up", "approve"), ("hand_thumb_down", "reject"), ("hand_victory", "peace"),
        ("hand_pointing_up", "point"), ("hand_open_palm", "palm"), ("hand_closed_fist", "grip"),
        ("hand_call_sign", "none"), ("hand_ok_sign", "none"), ("hand_four_fingers", "none"),
    ]
    /// Videos of hands that show no canned gesture most of the time, read as `none`.
    static let noneVideos = ["video_hand_samples_test.mp4", "video_upperbody_hands_talking.mp4"]

    func run() throws -> SectionResult {
        var result = SectionResult()
        let bundle = ModelStore().path(for: .gestureRecognizerBundle)
        guard FileManager.default.fileExists(atPath: bundle.path) else {
            throw BenchmarkOptions.UsageError(description: "\(bundle.path) is missing: run `vision-tasks models install` first")
        }
        let media = try BenchmarkMedia.files()
        let photos = media.images.filter { url in Self.labels.contains { url.lastPathComponent.hasPrefix($0.prefix) } }

        // Embedding, per image.
        var hands: [(label: String, hand: HandLandmarkerResult, width: Int, height: Int)] = []
        let landmarker = try HandLandmarker(modelPath: bundle.path)
        var embedder: GestureEmbedder?
        for threads in options.threadCounts {
            let embedderOptions = GestureEmbedderOptions(modelPath: bundle.path)
            embedderOptions.baseOptions.numThreads = threads
            let timed = try GestureEmbedder(options: embedderOptions)
            embedder = embedder ?? timed
            var medians: [Double] = []
            for url in photos {
                let image = try MPImage(contentsOf: url)
                for _ in 0..<2 { _ = try timed.embedding(of: image) }
                let times = try (0..<options.taskRuns).map { _ in try milliseconds { _ = try timed.embedding(of: image) } }
                if let median = median(times) { medians.append(median) }
                if threads == options.threadCounts[0], let label = Self.label(of: url) {
                    let found = try landmarker.detect(image: image)
                    if !found.landmarks.isEmpty { hands.append((label, found, image.width, image.height)) }
                }
            }
            result.rows.append(BenchmarkRow(
                section: "training", item: "embedding, per image (\(photos.count) photos)", threads: threads,
                ours: median(medians), reference: "none", theirs: nil))
        }

        // Training on 1,000 samples: the photos' hands with their landmarks moved a little.
        guard let embedder, !hands.isEmpty else { throw BenchmarkOptions.UsageError(description: "no hand found in the shared photos") }
        var random = SystemRandomNumberGenerator()
        var data = GestureDataset()
        for index in 0..<1000 {
            let (label, hand, width, height) = hands[index % hands.count]
            let moved = hand.landmarks[0].map {
                NormalizedLandmark(x: $0.x + Float.random(in: -0.003...0.003, using: &random), y: $0.y + Float.random(in: -0.003...0.003, using: &random), z: $0.z)
            }
            try data.add(
                landmarks: moved, worldLandmarks: hand.worldLandmarks[0], handedness: hand.handedness[0],
                imageWidth: width, imageHeight: height, label: label, using: embedder)
        }
        var epochTimes: [Double] = []
        var runTimes: [Double] = []
        for _ in 0..<3 {
            var last = ContinuousClock.now
            runTimes.append(try milliseconds {
                _ = try CustomGestureClassifier.train(trainData: data) { _ in
                    let now = ContinuousClock.now
                    let elapsed = (now - last).components
                    epochTimes.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
                    last = now
                }
            })
        }
        result.rows.append(BenchmarkRow(
            section: "training", item: "training, per epoch of 1000 samples", threads: 1, ours: median(epochTimes),
            reference: "none", theirs: nil))
        result.rows.append(BenchmarkRow(
            section: "training", item: "training, 10 epochs of 1000 samples", threads: 1, ours: median(runTimes),
            reference: "none", theirs: nil))

        // The whole command on a folder of the shared media.
        let folder = try makeFolder(photos: photos, videos: media.videos)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("trained.task")
        var counts = ""
        let whole = try milliseconds {
            let embedder = try GestureEmbedder(modelPath: bundle.path)
            let dataset = try GestureDataset(folder: folder.appendingPathComponent("data"), embedder: embedder)
            let (train, validation, test) = try dataset.split(validationFraction: 0.1, testFraction: 0.1)
            let classifier = try CustomGestureClassifier.train(trainData: train, validationData: validation)
            let evaluation = try classifier.evaluate(test)
            try classifier.exportModel(to: output, baseModelPath: bundle.path)
            counts = "\(dataset.count) samples of \(dataset.labels.count) labels, test accuracy \(String(format: "%.2f", evaluation.accuracy))"
        }
        result.rows.append(BenchmarkRow(
            section: "training", item: "gesture train, whole (shared media)", threads: BaseOptions.defaultNumThreads, ours: whole,
            reference: "none", theirs: nil))
        result.notes.append(
            "training: 1,000 samples from the hands of \(hands.count) shared photos (landmarks moved by up to 0.003), Model Maker's defaults (batch 2, 10 epochs), one thread; "
                + "the whole command on \(photos.count) photos and \(Self.noneVideos.count) videos at 5 frames per second: \(counts)")
        return result
    }

    private static func label(of url: URL) -> String? {
        labels.first { url.lastPathComponent.hasPrefix($0.prefix) }?.label
    }

    /// `data/<label>/` with links to the photos and the `none` videos.
    private func makeFolder(photos: [URL], videos: [URL]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("vision-tasks-bench-\(UUID().uuidString)")
        for url in photos {
            guard let label = Self.label(of: url) else { continue }
            let folder = root.appendingPathComponent("data/\(label)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(url.lastPathComponent), withDestinationURL: url)
        }
        for url in videos where Self.noneVideos.contains(url.lastPathComponent) {
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent("data/none/\(url.lastPathComponent)"), withDestinationURL: url)
        }
        return root
    }
}
