import Foundation
import MediaIO
import VisionTasks

/// Section "classification": ML Kit's pose classification and repetition counting
/// (`PoseClassificationTracker`: classify, smooth, count) per frame, beside the pose landmarker
/// that produces its input on the same frames, with ML Kit-sized and larger sample sets.
///
/// The frames are every frame of `video_pose_squats.mp4` in video mode (one pose); the pose
/// landmarker's median time per frame is the reference column, so the ratio says what the
/// classification adds to a frame. Samples: the clip's own landmarks with seeded jitter (±3
/// pixels), labelled `squats_up` or `squats_down` by the hips' height above the knees, in sets of
/// 50 (the size of a user's own examples), 1,000 and 10,000. The classification's cost depends on
/// the number of samples, not on what they show. Each set's tracker processes the clip's results
/// `classificationPasses` times over; the median per frame is reported.
struct PoseClassificationBenchmark {
    let options: BenchmarkOptions

    static let clip = "video_pose_squats.mp4"
    static let sampleCounts = [50, 1_000, 10_000]
    static let classificationPasses = 20

    func run() throws -> SectionResult {
        var section = SectionResult()
        let bundle = ModelStore().path(for: .poseLandmarkerFullBundle)
        guard FileManager.default.fileExists(atPath: bundle.path) else {
            throw BenchmarkOptions.UsageError(description: "\(bundle.path) is missing: run `vision-tasks models install` first")
        }
        let file = try BenchmarkMedia.directory().appendingPathComponent(Self.clip)
        var frames: [PixelBuffer] = []
        let reader = try VideoReader(path: file.path)
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        guard let first = frames.first else { throw BenchmarkOptions.UsageError(description: "\(file.path): no frames") }

        for threads in options.threadCounts {
            let landmarkerOptions = PoseLandmarkerOptions()
            landmarkerOptions.baseOptions.modelAssetPath = bundle.path
            landmarkerOptions.baseOptions.numThreads = threads
            landmarkerOptions.runningMode = .video
            let landmarker = try PoseLandmarker(options: landmarkerOptions)
            var results: [PoseLandmarkerResult] = []
            var modelTimes: [Double] = []
            for (index, frame) in frames.enumerated() {
                let image = MPImage(pixelBuffer: frame)
                modelTimes.append(try milliseconds {
                    results.append(try landmarker.detect(videoFrame: image, timestampInMilliseconds: index * 200))
                })
            }
            let poses = results.compactMap(\.landmarks.first)
            for count in Self.sampleCounts {
                let samples = try Self.samples(count, from: poses, width: first.width, height: first.height)
                let tracker = try PoseClassificationTracker(classifier: try PoseClassifier(samples: samples))
                var times: [Double] = []
                var timestamp = 0
                for _ in 0..<Self.classificationPasses {
                    for result in results {
                        var timed = result
                        timed.timestampInMilliseconds = timestamp
                        timestamp += 200
                        times.append(milliseconds { tracker.process(timed, imageWidth: first.width, imageHeight: first.height) })
                    }
                }
                section.rows.append(BenchmarkRow(
                    section: "classification",
                    item: "classify + smooth + count per frame, \(count) samples (\(Self.clip), \(results.count) frames)",
                    threads: threads, ours: median(times), reference: "pose landmarker, same frames (video mode)",
                    theirs: median(modelTimes)))
            }
        }
        section.notes.append(
            "classification: the ratio is the time classification and counting add to a frame over the pose landmarker's; "
                + "they run on the calling thread whatever --threads says (the thread count is the landmarker's)")
        return section
    }

    /// `count` samples from `poses` (cycled) with seeded jitter of up to 3 pixels, labelled up or
    /// down by the hips' height above the knees (a third of the torso's height or less: down).
    static func samples(_ count: Int, from poses: [[NormalizedLandmark]], width: Int, height: Int) throws -> [PoseSample] {
        var state: UInt64 = 0x5DEE_CE66_D1CE_4E5B
        func jitter() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24) * 6 - 3
        }
        return try (0..<count).map { index in
            let pose = poses[index % poses.count]
            let pixels = pose.map { SIMD3($0.x * Float(width) + jitter(), $0.y * Float(height) + jitter(), $0.z * Float(width)) }
            let hips = (pixels[23].y + pixels[24].y) / 2, knees = (pixels[25].y + pixels[26].y) / 2
            let shoulders = (pixels[11].y + pixels[12].y) / 2
            let down = knees - hips <= (hips - shoulders) / 3
            return try PoseSample(name: "sample\(index)", className: down ? "squats_down" : "squats_up", landmarks: pixels)
        }
    }
}
