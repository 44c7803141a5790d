import Foundation
@_spi(Apps) @testable import LiteInterpreter
import TestSupport
import XCTest

final class InterpreterTests: XCTestCase {
    func addModel() throws -> Model {
        var m = TestModel()
        let x = m.addTensor([2, 3], name: "x"), c = m.addConstant([3], [1, 2, 3]), y = m.addTensor([2, 3], name: "y")
        m.addOperator(code: Op.add, inputs: [x, c], outputs: [y], optionsType: Options.add, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [y]
        return try Model(bytes: m.serialize())
    }

    func testInputOutputAccessAndErrors() throws {
        let interpreter = try Interpreter(model: try addModel(), options: .init(threadCount: 1))
        XCTAssertEqual(interpreter.inputTensorCount, 1)
        XCTAssertEqual(interpreter.outputTensorCount, 1)
        XCTAssertThrowsError(try interpreter.input(at: 1)) {
            XCTAssertEqual($0 as? InterpreterError, .invalidTensorIndex(index: 1, count: 1, role: "input"))
        }
        XCTAssertThrowsError(try interpreter.output(at: -1))
        XCTAssertThrowsError(try interpreter.copy([1, 2], toInputAt: 0)) {
            XCTAssertEqual($0 as? InterpreterError, .invalidDataSize(index: 0, expectedBytes: 24, givenBytes: 8))
        }
        XCTAssertThrowsError(try interpreter.copy(Data(count: 23), toInputAt: 0))
        try interpreter.withUnsafeMutableInputBuffer(at: 0) { buffer in
            XCTAssertEqual(buffer.count, 6)
            for i in buffer.indices { buffer[i] = Float(i) }
        }
        let input = try interpreter.input(at: 0)
        XCTAssertEqual(input.name, "x")
        XCTAssertEqual(input.shape, [2, 3])
        XCTAssertEqual(input.floats, [0, 1, 2, 3, 4, 5])
        try interpreter.invoke()
        XCTAssertEqual(try interpreter.output(at: 0).floats, [1, 3, 5, 4, 6, 8])
        try interpreter.withUnsafeOutputBuffer(at: 0) { XCTAssertEqual(Array($0), [1, 3, 5, 4, 6, 8]) }
        XCTAssertThrowsError(try Interpreter(model: try addModel(), options: .init(threadCount: 0))) {
            XCTAssertEqual($0 as? InterpreterError, .invalidThreadCount(0))
        }
        XCTAssertThrowsError(try Interpreter(model: try addModel(), options: .init(threadCount: 100_000))) {
            XCTAssertEqual($0 as? InterpreterError, .invalidThreadCount(100_000))
        }
    }

    func testThreadCountsAndSharedModelsGiveIdenticalResults() throws {
        let url = try SharedTestData.installedModel("hand_landmark_lite.tflite")
        let model = try Model(contentsOf: url)
        var random = TestRandom(state: 5)
        let input = random.floats(224 * 224 * 3).map { ($0 + 1) / 2 }
        let run: @Sendable (Int) throws -> [[Float]] = { threads in
            let interpreter = try Interpreter(model: model, options: .init(threadCount: threads))
            try interpreter.copy(input, toInputAt: 0)
            try interpreter.invoke()
            let first = try (0..<4).map { try interpreter.output(at: $0).floats }
            try interpreter.invoke()
            XCTAssertEqual(try (0..<4).map { try interpreter.output(at: $0).floats }, first, "invoke is repeatable")
            return first
        }
        let single = try run(1)
        XCTAssertEqual(try run(2), single)
        XCTAssertEqual(try run(3), single)
        // Two interpreters sharing one model on two threads at once.
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            let outcome = Result { try run(1) }
            results.append(outcome)
        }
        for outcome in results.values { XCTAssertEqual(try outcome.get(), single) }
        // The convenience initialiser reads the file itself.
        XCTAssertEqual(try Interpreter(modelPath: url.path).inputTensorCount, 1)
        XCTAssertThrowsError(try Interpreter(modelPath: "/nonexistent/model.tflite")) {
            guard case .unreadableFile? = $0 as? ModelError else { return XCTFail("\($0)") }
        }
    }

    /// Profiled invokes, timed in the flow or with each operator run again in place first, leave
    /// the outputs of a plain invoke: no operator reads what it writes.
    func testProfiledInvokesGiveTheResultsOfInvoke() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("pose_detection.tflite"))
        var random = TestRandom(state: 11)
        let input = random.floats(224 * 224 * 3), other = random.floats(224 * 224 * 3)
        for threads in [1, 2] {
            let interpreter = try Interpreter(model: model, options: .init(threadCount: threads))
            try interpreter.copy(input, toInputAt: 0)
            try interpreter.invoke()
            let expected = try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0).floats }
            for repeats in [0, 2] {
                // Another input's results first, so that the profiled invoke has to compute them all.
                try interpreter.copy(other, toInputAt: 0)
                try interpreter.invoke()
                try interpreter.copy(input, toInputAt: 0)
                let timings = try interpreter.invokeProfiled(repeatsBeforeTiming: repeats)
                let program = model.program
                XCTAssertEqual(timings.map(\.operatorIndex),
                               program.schedule.steps.map { program.operations[$0.operations.min() ?? 0].operatorIndex })
                let outputs = try (0..<interpreter.outputTensorCount).map { try interpreter.output(at: $0).floats }
                XCTAssertEqual(outputs, expected, "\(threads) thread(s), \(repeats) untimed runs per operator")
            }
        }
    }

    /// While the pool adds up busy times, a profiled invoke gives each operator every thread's time
    /// in its pieces: both threads work in some of pose_detection's operators, no thread works
    /// longer than the operator took, and nothing is counted when the pool does not measure.
    func testProfiledInvokesGiveEachThreadsTimeInItsPieces() throws {
        let model = try Model(contentsOf: try SharedTestData.installedModel("pose_detection.tflite"))
        let single = try Interpreter(model: model, options: .init(threadCount: 1))
        XCTAssertTrue(try single.invokeProfiled().allSatisfy { $0.threadSeconds.isEmpty })
        let interpreter = try Interpreter(model: model, options: .init(threadCount: 2))
        try interpreter.invoke()
        XCTAssertTrue(try interpreter.invokeProfiled().allSatisfy { $0.threadSeconds == [0, 0] })
        interpreter.measureBusyTime(true)
        let timings = try interpreter.invokeProfiled()
        interpreter.measureBusyTime(false)
        XCTAssertTrue(timings.allSatisfy { $0.threadSeconds.count == 2 })
        for timing in timings {
            for seconds in timing.threadSeconds {
                XCTAssertGreaterThanOrEqual(seconds, 0, "operator \(timing.operatorIndex)")
                XCTAssertLessThanOrEqual(seconds, timing.seconds, "operator \(timing.operatorIndex)")
            }
        }
        XCTAssertTrue(timings.contains { $0.threadSeconds.allSatisfy { $0 > 0 } }, "no operator with both threads at work")
    }

    /// Tensors alive at the same step of the schedule never share bytes; the rest share. The
    /// gesture embedder has a step of branches (68 of its 71 operations), whose tensors are all
    /// alive at once, so its arena is not much smaller than its activations.
    func testMemoryPlansReuseMemory() throws {
        for (name, reuses) in [("pose_landmark_full", true), ("gesture_embedder", false)] {
            try checkMemoryPlans(try Model(contentsOf: try SharedTestData.installedModel("\(name).tflite")), reuses: reuses)
        }
    }

    private func checkMemoryPlans(_ model: Model, reuses: Bool) throws {
        var first: [Int: Int] = [:], last: [Int: Int] = [:]
        for (index, op) in model.program.operations.enumerated() {
            // A step of branches runs its operations at once: they share one step.
            let step = model.program.schedule.stepOfOperation[index]
            for t in op.inputs + op.outputs where model.program.plan.offsets[t] != nil {
                first[t] = min(first[t] ?? step, step)
                last[t] = max(last[t] ?? step, step)
            }
        }
        let tensors = Array(first.keys)
        for (name, plan) in [("packed", model.program.plan), ("centered", model.program.threadedPlan)] {
            let total = plan.bytes.values.reduce(0, +)
            if reuses { XCTAssertLessThan(plan.size, total / 3, "\(name): the arena should be much smaller than all activations together") }
            for t in tensors {
                let offset = plan.offsets[t] ?? -1
                XCTAssertTrue(offset >= 0 && offset % MemoryPlan.alignment == 0 && offset + (plan.bytes[t] ?? 0) <= plan.size,
                              "\(name): tensor \(t) at \(offset) is not an aligned place in the arena")
            }
            for (i, a) in tensors.enumerated() {
                for b in tensors[(i + 1)...] {
                    let (oa, ob) = (plan.offsets[a] ?? 0, plan.offsets[b] ?? 0)
                    let (ea, eb) = (oa + (plan.bytes[a] ?? 0), ob + (plan.bytes[b] ?? 0))
                    let apart = ea <= ob || eb <= oa
                    if (first[a] ?? 0) <= (last[b] ?? 0) && (first[b] ?? 0) <= (last[a] ?? 0) {
                        XCTAssertTrue(apart, "\(name): tensors \(a) and \(b) overlap while both alive")
                    }
                    // Centred: tensors that share bytes share their middle (to the alignment), so
                    // each half of the slot is written by the same thread whichever tensor is in it.
                    if name == "centered" && !apart {
                        XCTAssertLessThanOrEqual(abs((oa + ea) / 2 - (ob + eb) / 2), MemoryPlan.alignment,
                                                 "centered: tensors \(a) and \(b) share bytes around different middles")
                    }
                }
            }
        }
    }

    /// The centred plan's price in memory, printed for each of the six models over 1 ms (the
    /// figures MemoryPlan.Layout.centered quotes).
    func testCentredPlansStayUnderTwiceThePackedArena() throws {
        for name in ["hand_landmark_full", "hand_landmark_lite", "palm_detection_full", "palm_detection_lite",
                     "pose_detection", "pose_landmark_full"] {
            let program = try Model(contentsOf: try SharedTestData.installedModel("\(name).tflite")).program
            let ratio = Double(program.threadedPlan.size) / Double(program.plan.size)
            print("\(name): arena \(program.plan.size) bytes packed, \(program.threadedPlan.size) centred (\(String(format: "%.2f", ratio))x)")
            XCTAssertLessThan(program.threadedPlan.size, 2 * program.plan.size, name)
        }
    }
}

/// Collects results from concurrent work.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Result<[[Float]], any Error>] = []
    func append(_ value: Result<[[Float]], any Error>) { lock.lock(); stored.append(value); lock.unlock() }
    var values: [Result<[[Float]], any Error>] { lock.lock(); defer { lock.unlock() }; return stored }
}
