import Foundation
@_spi(Apps) import VisionTasks

/// The tasks the benchmark times, each as a function of a frame and its timestamp (ignored in
/// image mode) returning what it found (hands or poses).
enum BenchmarkTask {
    /// `name` is "gesture", "hands" or "pose"; hands are found up to `TaskBenchmark.numHands`.
    static func make(_ name: String, video: Bool, bundle: URL, threads: Int, numPoses: Int = 1, poseMasks: Bool = false)
        throws -> (MPImage, Int) throws -> Int {
        try makeWithThreads(name, video: video, bundle: bundle, threads: threads, numPoses: numPoses, poseMasks: poseMasks).run
    }

    /// `make`, with the task's model threads for decoding its frames (`TaskThreads`).
    static func makeWithThreads(_ name: String, video: Bool, bundle: URL, threads: Int, numPoses: Int = 1, poseMasks: Bool = false)
        throws -> (run: (MPImage, Int) throws -> Int, threads: TaskThreads) {
        let mode: RunningMode = video ? .video : .image
        switch name {
        case "gesture":
            let options = GestureRecognizerOptions()
            options.baseOptions.modelAssetPath = bundle.path
            options.baseOptions.numThreads = threads
            options.runningMode = mode
            options.numHands = TaskBenchmark.numHands
            let recognizer = try GestureRecognizer(options: options)
            let run: (MPImage, Int) throws -> Int = video
                ? { try recognizer.recognize(videoFrame: $0, timestampInMilliseconds: $1).landmarks.count }
                : { image, _ in try recognizer.recognize(image: image).landmarks.count }
            return (run, recognizer.threads)
        case "hands":
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = bundle.path
            options.baseOptions.numThreads = threads
            options.runningMode = mode
            options.numHands = TaskBenchmark.numHands
            let landmarker = try HandLandmarker(options: options)
            let run: (MPImage, Int) throws -> Int = video
                ? { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1).landmarks.count }
                : { image, _ in try landmarker.detect(image: image).landmarks.count }
            return (run, landmarker.threads)
        default:
            let options = PoseLandmarkerOptions()
            options.baseOptions.modelAssetPath = bundle.path
            options.baseOptions.numThreads = threads
            options.runningMode = mode
            options.numPoses = numPoses
            options.outputSegmentationMasks = poseMasks
            let landmarker = try PoseLandmarker(options: options)
            let run: (MPImage, Int) throws -> Int = video
                ? { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1).landmarks.count }
                : { image, _ in try landmarker.detect(image: image).landmarks.count }
            return (run, landmarker.threads)
        }
    }
}
