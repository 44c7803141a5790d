import Foundation

/// Runs a `Model` in float32 on the CPU.
///
/// Creating an interpreter allocates everything it needs (one activation arena laid out by the
/// model's static memory plan, convolution indirection buffers, worker threads); `invoke()`
/// then allocates nothing. Fill the inputs with `copy(_:toInputAt:)` or, without a copy,
/// `withUnsafeMutableInputBuffer(at:_:)`, call `invoke()`, and read the outputs.
///
/// An interpreter is used from one thread at a time (it is not `Sendable`). Create one per
/// thread; they can share one `Model`.
public final class Interpreter {
    /// How an interpreter runs.
    public struct Options: Sendable, Equatable {
        /// Threads that work on each operator (the calling thread included). Default: all cores.
        public var threadCount: Int

        /// The most threads an interpreter starts: 4 per active processor core. More only
        /// adds contention (a 2-core machine asked for 100,000 threads stalls), so larger
        /// counts are refused with `InterpreterError.invalidThreadCount`.
        public static var maximumThreadCount: Int { 4 * max(1, ProcessInfo.processInfo.activeProcessorCount) }

        /// Options with `threadCount` threads (default: one per active processor).
        public init(threadCount: Int = ProcessInfo.processInfo.activeProcessorCount) {
            self.threadCount = threadCount
        }
    }

    /// The model the interpreter runs.
    public let model: Model
    /// The options it was created with.
    public let options: Options

    private let arena: AlignedBuffer
    /// One bound operation per step of the program's schedule (a step of branches as one).
    private let steps: [BoundOperation]
    /// `steps` again, unretained, for `invoke()` (which `steps` keeps alive).
    private let runList: [Unmanaged<BoundOperation>]
    private let pool: WorkerPool
    private let inputPointers: [UnsafeMutablePointer<Float>]
    private let outputPointers: [UnsafeMutablePointer<Float>]
    private let memory: TensorMemory

    /// Prepares an interpreter for `model`.
    /// - Throws: `InterpreterError`.
    public convenience init(model: Model, options: Options = Options()) throws {
        try self.init(model: model, options: options, preservingAllTensors: false)
    }

    /// Prepares an interpreter for `model` that runs on `pool`'s threads. Interpreters that
    /// share a pool must not run at the same time (one task's models, run one after another).
    /// - Throws: `InterpreterError`.
    package convenience init(model: Model, sharing pool: WorkerPool) throws {
        try self.init(model: model, options: Options(threadCount: pool.threadCount), preservingAllTensors: false, pool: pool)
    }

    /// `preservingAllTensors` gives every tensor its own memory so that `tensorValues(_:)` can
    /// read any of them after `invoke()` (for debugging against another runtime). `pool`: the
    /// threads to run on (nil: a pool of the interpreter's own).
    init(model: Model, options: Options, preservingAllTensors: Bool, pool: WorkerPool? = nil) throws {
        guard options.threadCount >= 1, options.threadCount <= Options.maximumThreadCount else { throw InterpreterError.invalidThreadCount(options.threadCount) }
        self.model = model
        self.options = options
        let program = model.program
        let plan = preservingAllTensors ? program.plan.unshared : options.threadCount > 1 ? program.threadedPlan : program.plan
        arena = AlignedBuffer(byteCount: plan.size)
        let memory = TensorMemory(arena: arena.raw, plan: plan, constants: program.runtimeConstants,
                                  threadCount: options.threadCount)
        self.memory = memory
        let operations = try program.operations.map { try $0.bind(memory) }
        steps = program.schedule.steps.map { step in
            switch step {
            case let .operation(index): operations[index]
            case let .branches(branches): BoundBranches(branches.map { $0.map { operations[$0] } })
            }
        }
        runList = steps.map { Unmanaged.passUnretained($0) }
        inputPointers = try program.inputs.map { try memory.mutablePointer($0.index) }
        outputPointers = try program.outputs.map { try memory.mutablePointer($0.index) }
        self.pool = try pool ?? WorkerPool(threadCount: options.threadCount)
    }

    /// Loads the model at `modelPath` and prepares an interpreter for it.
    /// - Throws: `ModelError` or `InterpreterError`.
    public convenience init(modelPath: String, options: Options = Options()) throws {
        try self.init(model: Model(contentsOf: URL(fileURLWithPath: modelPath)), options: options)
    }

    /// The threads the interpreter runs on, which the work that fills its inputs can share.
    package var workerPool: WorkerPool { pool }

    /// The number of model inputs.
    public var inputTensorCount: Int { model.inputs.count }
    /// The number of model outputs.
    public var outputTensorCount: Int { model.outputs.count }

    /// A copy of input `index` (name, shape, type and current data).
    public func input(at index: Int) throws -> Tensor {
        let description = try checked(index, model.inputs, role: "input")
        return tensor(description, inputPointers[index])
    }

    /// A copy of output `index` as the last `invoke()` left it.
    public func output(at index: Int) throws -> Tensor {
        let description = try checked(index, model.outputs, role: "output")
        return tensor(description, outputPointers[index])
    }

    /// Copies float32 values into input `index`; the count must match the input's shape.
    public func copy(_ values: [Float], toInputAt index: Int) throws {
        let description = try checked(index, model.inputs, role: "input")
        guard values.count == description.elementCount else {
            throw InterpreterError.invalidDataSize(index: index, expectedBytes: description.byteCount, givenBytes: values.count * 4)
        }
        values.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { inputPointers[index].update(from: base, count: source.count) }
        }
    }

    /// Copies little-endian float32 bytes into input `index`; the size must match.
    public func copy(_ data: Data, toInputAt index: Int) throws {
        let description = try checked(index, model.inputs, role: "input")
        guard data.count == description.byteCount else {
            throw InterpreterError.invalidDataSize(index: index, expectedBytes: description.byteCount, givenBytes: data.count)
        }
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { UnsafeMutableRawPointer(inputPointers[index]).copyMemory(from: base, byteCount: raw.count) }
        }
    }

    /// Gives `body` the input's memory to fill in place (no copy). The buffer is valid only
    /// during the call.
    public func withUnsafeMutableInputBuffer<R>(at index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R) throws -> R {
        let description = try checked(index, model.inputs, role: "input")
        return try body(UnsafeMutableBufferPointer(start: inputPointers[index], count: description.elementCount))
    }

    /// Gives `body` the output's memory to read in place (no copy). The buffer is valid only
    /// during the call and is overwritten by the next `invoke()`.
    public func withUnsafeOutputBuffer<R>(at index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) throws -> R {
        let description = try checked(index, model.outputs, role: "output")
        return try body(UnsafeBufferPointer(start: outputPointers[index], count: description.elementCount))
    }

    /// Runs the model on the current inputs.
    public func invoke() throws {
        let handle = pool.handle
        StageStopwatch.time(.models) {
            // Unretained references: iterating `steps` itself retains and releases each
            // operator (two atomic operations each, which tiny models such as the gesture
            // embedder, 71 operators in about 12 µs, feel). `steps` keeps them alive.
            for operation in runList { operation._withUnsafeGuaranteedRef { $0.run(pool: handle) } }
        }
    }

    /// Runs the model once like `invoke()`, timing every operator (for profiling; the
    /// timing itself adds a little overhead). Fused operators appear once, under the operator
    /// that absorbed them; independent branches of small operators that run side by side, once
    /// for all of them, under the first one's index (kind "side by side (N branches)").
    ///
    /// - Parameter repeatsBeforeTiming: how many times each operator runs untimed, right before
    ///   the run that is timed. With 1 or more, an operator's input, output and weights already
    ///   sit in the caches of the threads that use them when it is timed ("in place"); against
    ///   the times with 0 ("in the flow") that shows what moving data between operators (and, at
    ///   several threads, between cores) costs. Every operator writes only its own outputs, so
    ///   the results are those of `invoke()` either way.
    public func invokeProfiled(repeatsBeforeTiming: Int = 0) throws -> [OperatorTiming] {
        let handle = pool.handle
        let clock = ContinuousClock()
        let threads = pool.threadCount > 1
        return zip(steps, stepLabels).map { bound, label in
            for _ in 0..<max(0, repeatsBeforeTiming) { bound.run(pool: handle) }
            let before = threads ? pool.busyTime().threads : []
            let elapsed = clock.measure { bound.run(pool: handle) }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            var timing = OperatorTiming(operatorIndex: label.operatorIndex, kind: label.kind, detail: label.detail,
                                        multiplyAdds: label.multiplyAdds, seconds: seconds)
            if threads { timing.threadSeconds = zip(pool.busyTime().threads, before).map { $0 - $1 } }
            return timing
        }
    }

    /// What `invokeProfiled` reports for each step besides its time (zero here), made on its first
    /// call: an operator's index, summary, shapes and multiply-adds; for a step of branches, its
    /// first operator's index and the operators' count and multiply-adds together.
    private lazy var stepLabels: [OperatorTiming] = {
        let program = model.program
        return program.schedule.steps.map { step in
            switch step {
            case let .operation(index):
                let prepared = program.operations[index]
                return OperatorTiming(operatorIndex: prepared.operatorIndex, kind: prepared.summary, detail: prepared.detail,
                                      multiplyAdds: prepared.multiplyAdds, seconds: 0)
            case let .branches(branches):
                let prepared = step.operations.sorted().map { program.operations[$0] }
                return OperatorTiming(operatorIndex: prepared.first?.operatorIndex ?? -1, kind: "side by side (\(branches.count) branches)",
                                      detail: "\(prepared.count) operators", multiplyAdds: prepared.reduce(0) { $0 + $1.multiplyAdds },
                                      seconds: 0)
            }
        }
    }()

    /// Profiling the threads: starts (or stops) adding up, per thread, the time spent in its
    /// pieces of operators, and the caller's time in operators split over threads (two clock
    /// reads per piece while on). Set it between invocations.
    @_spi(Apps) public func measureBusyTime(_ on: Bool) {
        pool.measureBusyTime(on)
    }

    /// The times added up while measuring (`measureBusyTime`), in seconds: `jobs`, the caller's
    /// time in operators split over threads; `threads`, each thread's time at work in them (the
    /// calling thread first). Empty for one thread. Shared by the interpreters of one pool.
    @_spi(Apps) public func busyTime() -> (jobs: Double, threads: [Double]) {
        pool.busyTime()
    }

    /// The values of any planned tensor (meaningful for all tensors only when the interpreter
    /// preserves all tensors), or nil for tensors that are not in the plan.
    func tensorValues(_ tensor: Int) -> [Float]? {
        guard let bytes = memory.plan.bytes[tensor], let pointer = try? memory.mutablePointer(tensor) else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: bytes / 4))
    }

    private func checked(_ index: Int, _ list: [TensorDescription], role: String) throws -> TensorDescription {
        guard index >= 0, index < list.count else {
            throw InterpreterError.invalidTensorIndex(index: index, count: list.count, role: role)
        }
        return list[index]
    }

    private func tensor(_ description: TensorDescription, _ pointer: UnsafeMutablePointer<Float>) -> Tensor {
        Tensor(name: description.name, dataType: description.dataType, shape: description.shape,
               data: Data(bytes: pointer, count: description.byteCount))
    }
}
