import Foundation
import VisionTasks

/// Command-line options of `vision-tasks-bench`.
struct BenchmarkOptions {
    /// Our thread counts: 1 and the default (all cores), or --threads.
    var threadCounts: [Int] = Array(Set([1, BaseOptions.defaultNumThreads])).sorted()
    /// Model file names (or paths) to time; empty = every installed `.tflite`.
    var models: [String] = []
    var runs = 50
    var warmup = 5
    var compareWithLiteRT = true
    /// Print where the time goes, per operator kind, instead of the comparison.
    var profile = false
    /// With `profile`: also list every operator with its best time and multiply-add rate.
    var profileOperators = false
    /// With `profile` (which it implies): untimed runs of each operator right before its timed
    /// one (0 = none: the operators are timed in the model's flow).
    var inPlaceRepeats = 0
    /// Sections to run (`models`, `scaling`, `gesture`, `hands`, `pose`, `live`, `training`, `classification`); empty = all.
    var sections: Set<String> = []
    /// Timed calls per image in the task sections.
    var taskRuns = 10
    var poseNumPoses = 1
    var poseMasks = false
    var compareWithMediaPipe = true
    /// Also print per-file (and fastest-run) tables.
    var details = false
    /// Frames of the clip the live section runs on.
    var liveFrames = 90
    /// Milliseconds the scaling section waits before each timed invoke (a camera's frame
    /// interval, during which the pool's workers go to sleep); 0 = back to back.
    var paceMilliseconds = 0

    static let sectionNames: Set<String> = ["models", "scaling", "gesture", "hands", "pose", "live", "training", "classification"]

    /// Whether the section `name` runs.
    func runs(section name: String) -> Bool { sections.isEmpty || sections.contains(name) }

    static let usage = """
        usage: vision-tasks-bench [--threads 1,2] [--models a.tflite,b.tflite] [--runs N] [--warmup N] [--no-litert] [--profile] [--profile-operators] [--in-place N]
                          [--sections models,scaling,gesture,hands,pose,live,training,classification] [--task-runs N] [--pose-num-poses N] [--pose-masks] [--live-frames N]
                          [--pace-ms N]
                          [--no-mediapipe] [--details]

        Prints one table: for each model, our median invoke time and LiteRT's (XNNPACK) at the same thread
        count (the scaling section: each model's speed-up from the first thread count to the others, their
        runs taken in turns); for each task (gesture: image mode on the test images, hands: video mode on the test videos,
        pose: image and video mode), our median time per image or frame at each thread count and MediaPipe's
        Python Tasks API's (as it runs by default) on the same files; the ratios; and each side's peak memory.
        The live section times a camera frame's whole trip (JPEG bytes -> decode -> task -> result) at 640x480
        and 1280x720 against MediaPipe decoding the same bytes with OpenCV; --details adds its stage split and
        the first frame's latency in a fresh process. The training section times custom gesture training:
        embedding per image, training per epoch of 1,000 samples, and `gesture train` whole on the shared media
        (no reference: Model Maker needs TensorFlow). The classification section times ML Kit's pose
        classification and repetition counting per frame (50, 1,000 and 10,000 samples) beside the pose
        landmarker on the same frames.

          --threads   our thread counts, and LiteRT's (default: 1 and all cores)
          --models    model files: names in the installed models folder or paths (default: every installed .tflite)
          --runs      timed invocations per model (default 50); the median is reported
          --warmup    untimed invocations first (default 5)
          --profile   print our time per operator kind for each model instead of the comparison; at 2+ threads
                      also how long each thread was at work in the operators split over threads
          --profile-operators   the same, plus every operator's best time and multiply-add rate
          --in-place N  profile (as --profile; add --profile-operators for every operator) with each operator
                      run N times untimed right before its timed run, so that its data already sits in the caches of the threads that use it;
                      against the times without it, this shows what moving data between operators and cores costs
          --no-litert do not time LiteRT (otherwise $VISION_TASKS_PYTHON, scripts/test's venv
                      ~/.cache/vision-tasks/mediapipe-venv or python3 runs scripts/benchmarks/litert_invoke.py)
          --sections  sections to run, of models,scaling,gesture,hands,pose,live,training,classification (default: all)
          --task-runs timed calls per image in the task sections (default 10); video frames run once
          --pose-num-poses N, --pose-masks   pose options (default 1 pose, no masks)
          --live-frames N   frames of the live section's clip (default 90)
          --pace-ms N the scaling section waits N ms (1 to 1000) before each timed invoke, as between a
                      camera's frames (default: back to back)
          --no-mediapipe  do not time MediaPipe's Python Tasks API (otherwise the same Python
                      runs scripts/benchmarks/mediapipe_tasks.py with mediapipe)
          --details   also print per-file medians, the models' fastest runs and their speed-ups
        Run under scripts/dev/count-allocations to add heap allocations per call to the notes.
        Installed models: $VISION_TASKS_MODELS or ~/.cache/vision-tasks/models.
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(for flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func positiveInts(_ text: String, _ flag: String) throws -> [Int] {
            let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) >= 1 }) else {
                throw UsageError(description: "\(flag) takes positive integers, got \(text)")
            }
            return values.compactMap { $0 }
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--threads": threadCounts = try positiveInts(try value(for: argument), argument)
            case "--models": models = try value(for: argument).split(separator: ",").map(String.init)
            case "--runs": runs = try positiveInts(try value(for: argument), argument)[0]
            case "--warmup": warmup = try positiveInts(try value(for: argument), argument)[0]
            case "--no-litert": compareWithLiteRT = false
            case "--profile": profile = true
            case "--profile-operators":
                profile = true
                profileOperators = true
            case "--in-place":
                profile = true
                inPlaceRepeats = try positiveInts(try value(for: argument), argument)[0]
                guard inPlaceRepeats <= 10 else { throw UsageError(description: "--in-place takes 1 to 10, got \(inPlaceRepeats)") }
            case "--sections":
                sections = Set(try value(for: argument).split(separator: ",").map(String.init))
                guard sections.isSubset(of: Self.sectionNames) else {
                    throw UsageError(description: "--sections takes \(Self.sectionNames.sorted().joined(separator: ",")), got \(sections.sorted())")
                }
            case "--task-runs": taskRuns = try positiveInts(try value(for: argument), argument)[0]
            case "--pose-num-poses": poseNumPoses = try positiveInts(try value(for: argument), argument)[0]
            case "--pose-masks": poseMasks = true
            case "--live-frames": liveFrames = try positiveInts(try value(for: argument), argument)[0]
            case "--pace-ms":
                paceMilliseconds = try positiveInts(try value(for: argument), argument)[0]
                guard paceMilliseconds <= 1000 else { throw UsageError(description: "--pace-ms takes 1 to 1000, got \(paceMilliseconds)") }
            case "--no-mediapipe": compareWithMediaPipe = false
            case "--details": details = true
            case "--help", "-h": throw UsageError(description: BenchmarkOptions.usage)
            default: throw UsageError(description: "unknown argument \(argument)\n\(BenchmarkOptions.usage)")
            }
        }
    }

    /// The installed models folder.
    static var modelsDirectory: URL { ModelStore.defaultDirectory }

    /// The model files to time.
    func modelFiles() throws -> [URL] {
        let directory = BenchmarkOptions.modelsDirectory
        if models.isEmpty {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let files = names.filter { $0.hasSuffix(".tflite") }.sorted().map { directory.appendingPathComponent($0) }
            guard !files.isEmpty else {
                throw UsageError(description: "no .tflite files in \(directory.path); install the models or pass --models")
            }
            return files
        }
        return try models.map { name in
            let url = name.contains("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw UsageError(description: "model file not found: \(url.path)")
            }
            return url
        }
    }
}
