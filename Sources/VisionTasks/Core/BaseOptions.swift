import Foundation
import LiteInterpreter

/// The model a task runs and where it runs, as MediaPipe's `BaseOptions` (`MPPBaseOptions`).
///
/// Set either `modelAssetPath` (a `.task` bundle or `.tflite` file on disk) or
/// `modelAssetBuffer` (the same bytes in memory); a non-empty buffer takes precedence over the
/// path, as in MediaPipe's C++ API.
///
/// VisionTasks runs on the CPU only: `delegate` exists so that code written for MediaPipe
/// compiles, but `.gpu` is refused with `TasksError.unimplemented` when a task is created.
///
/// `numThreads` is VisionTasks' addition (MediaPipe's iOS `BaseOptions` has no such option; its
/// CPU inference picks its own thread count): how many threads each model runs on.
public final class BaseOptions: @unchecked Sendable {
    /// The processor a task runs on (`MPPDelegate`).
    public enum Delegate: Int, Sendable, CustomStringConvertible {
        /// The CPU: the only delegate VisionTasks runs on.
        case cpu = 0
        /// The GPU: accepted by the options, refused with `TasksError.unimplemented` when a task
        /// is created.
        case gpu = 1

        public var description: String { self == .cpu ? "CPU" : "GPU" }
    }

    /// Where a task's model comes from, after validation.
    package enum ModelSource: Sendable, Equatable {
        case file(URL)
        case buffer(Data)
    }

    private struct Values {
        var modelAssetPath = ""
        var modelAssetBuffer: Data?
        var delegate = Delegate.cpu
        var numThreads = BaseOptions.defaultNumThreads
    }

    private let state = Locked(Values())

    /// The default `numThreads`: one thread per active processor core.
    public static var defaultNumThreads: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The largest `numThreads` a task accepts: 4 per active processor core. Threads beyond the
    /// cores only contend for them; a huge count would start that many threads per model.
    public static var maxNumThreads: Int { Interpreter.Options.maximumThreadCount }

    /// Path of the model file (`.task` or `.tflite`).
    public var modelAssetPath: String {
        get { state[\.modelAssetPath] }
        set { state[\.modelAssetPath] = newValue }
    }

    /// The model file's bytes, for models that do not live on disk.
    public var modelAssetBuffer: Data? {
        get { state[\.modelAssetBuffer] }
        set { state[\.modelAssetBuffer] = newValue }
    }

    /// The processor to run on. Only `.cpu` is supported.
    public var delegate: Delegate {
        get { state[\.delegate] }
        set { state[\.delegate] = newValue }
    }

    /// Threads each model of the task runs on, the calling thread included (default: one per
    /// active processor core, `BaseOptions.defaultNumThreads`). The threads are started once,
    /// when the task is created, and wait between frames. Must be at least 1; 1 runs everything
    /// on the calling thread, and at most `BaseOptions.maxNumThreads` (4 per active core):
    /// anything else makes creating the task fail with `TasksError.invalidArgument`. Not part
    /// of MediaPipe's API.
    public var numThreads: Int {
        get { state[\.numThreads] }
        set { state[\.numThreads] = newValue }
    }

    /// Options with no model yet (set `modelAssetPath` or `modelAssetBuffer`), the CPU delegate
    /// and `defaultNumThreads` threads.
    public init() {}

    /// Options with a model path.
    public convenience init(modelAssetPath: String) {
        self.init()
        self.modelAssetPath = modelAssetPath
    }

    /// Options with a model in memory.
    public convenience init(modelAssetBuffer: Data) {
        self.init()
        self.modelAssetBuffer = modelAssetBuffer
    }

    /// An independent copy (MediaPipe's options are `NSCopying`).
    public func copy() -> BaseOptions {
        let copy = BaseOptions()
        copy.state.value = state.value
        return copy
    }

    /// The validated `numThreads`: `.invalidArgument` below 1 or above `maxNumThreads`.
    package func threadCount() throws -> Int {
        let threads = numThreads
        guard threads >= 1, threads <= Self.maxNumThreads else {
            throw TasksError.invalidArgument(
                "Invalid `numThreads` option: \(threads); it must be between 1 and \(Self.maxNumThreads) (4 per active core).")
        }
        return threads
    }

    /// Validates the options and says where the model comes from. Errors: `.unimplemented`
    /// for the GPU delegate, `.invalidArgument` when no model is given.
    package func modelSource() throws -> ModelSource {
        let values = state.value
        let (path, buffer) = (values.modelAssetPath, values.modelAssetBuffer)
        if values.delegate == .gpu {
            throw TasksError.unimplemented(
                "The GPU delegate is not available: VisionTasks runs on the CPU. Set `baseOptions.delegate = .cpu` (the default).")
        }
        if let buffer, !buffer.isEmpty {
            return .buffer(buffer)
        }
        guard !path.isEmpty else {
            throw TasksError.invalidArgument(
                buffer == nil
                    ? "BaseOptions has no model: set `modelAssetPath` or `modelAssetBuffer`."
                    : "`modelAssetBuffer` is empty and no `modelAssetPath` is set.")
        }
        return .file(URL(fileURLWithPath: path))
    }
}
