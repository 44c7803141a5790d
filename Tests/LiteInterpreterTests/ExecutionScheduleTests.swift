import Foundation
@testable import LiteInterpreter
import TestSupport
import XCTest

final class ExecutionScheduleTests: XCTestCase {
    static let models = ["canned_gesture_classifier", "gesture_embedder", "hand_landmark_full", "hand_landmark_lite",
                         "palm_detection_full", "palm_detection_lite", "pose_detection", "pose_landmark_full"]

    /// A schedule for operations given as the tensors they read and write and their work, every
    /// tensor of `elements` elements.
    private func schedule(_ inputs: [[Int]], _ outputs: [[Int]], _ work: [Int], elements: Int = 10) -> ExecutionSchedule {
        let tensors = Set(inputs.flatMap { $0 } + outputs.flatMap { $0 })
        let nodes = work.indices.map { ExecutionSchedule.Node(inputs: inputs[$0], outputs: outputs[$0], work: work[$0]) }
        return ExecutionSchedule(nodes, elements: Dictionary(uniqueKeysWithValues: tensors.map { ($0, elements) }))
    }

    /// A graph with two chains of small operators after a large one, a join, and a chain.
    func testIndependentSmallChainsBecomeOneStepOfBranches() {
        let small = 100_000, large = ExecutionSchedule.smallWork
        // 0: large t0 -> t1; 1: t1 -> t2; 2: t1 -> t3; 3: t2 -> t4 (a chain with 1); 4: t3 -> t5
        // (with 2); 5: large (t4, t5) -> t6; 6: t6 -> t7; 7: t7 -> t8 (one chain: one by one).
        let inputs = [[0], [1], [1], [2], [3], [4, 5], [6], [7]]
        let outputs = [[1], [2], [3], [4], [5], [6], [7], [8]]
        let steps = schedule(inputs, outputs, [large, small, small + small / 5, small, small, large, small, small])
        XCTAssertEqual(steps.steps, [.operation(0), .branches([[2, 4], [1, 3]]), .operation(5), .operation(6), .operation(7)])
        XCTAssertEqual(steps.stepOfOperation, [0, 1, 1, 1, 1, 2, 3, 4])
        // An operation that joins the branches stays out of their step.
        let joined = schedule([[0], [1], [1], [2, 3]], [[1], [2], [3], [4]], [large, small, small, small])
        XCTAssertEqual(joined.steps, [.operation(0), .branches([[1], [2]]), .operation(3)])
        // Tiny operations: one hand-off costs more than running them one after another.
        XCTAssertEqual(schedule([[0], [0]], [[1], [2]], [1000, 1000]).steps, [.operation(0), .operation(1)])
        // A branch as large as the rest together saves nothing.
        XCTAssertEqual(schedule([[0], [0]], [[1], [2]], [400_000, 10_000]).steps, [.operation(0), .operation(1)])
        // Branches that read a large tensor from before would move it between the cores.
        XCTAssertEqual(schedule([[0], [0]], [[1], [2]], [small, small]).steps, [.branches([[0], [1]])])
        XCTAssertEqual(schedule([[0], [0]], [[1], [2]], [small, small], elements: 50_000).steps, [.operation(0), .operation(1)])
    }

    /// Long runs of small operations are searched in stretches, and very long programs not at
    /// all, so that a hostile model file cannot make loading take long.
    func testLongRunsAreSearchedInStretches() {
        let small = 100_000
        // Pairs of independent operations reading the graph input: each stretch becomes a step.
        let count = 3 * ExecutionSchedule.maximumStretch
        let stretched = schedule(Array(repeating: [0], count: count), (1...count).map { [$0] }, Array(repeating: small, count: count))
        XCTAssertEqual(stretched.steps.count, 3)
        XCTAssertEqual(stretched.steps.map { $0.operations.count }, Array(repeating: ExecutionSchedule.maximumStretch, count: 3))
        // The most operations searched: each reads one of the three outputs before it, with work
        // between the split threshold and `smallWork`. The time is printed, not checked.
        let most = ExecutionSchedule.maximumOperations
        var random = TestRandom(state: 7)
        let reads = (0..<most).map { index in [max(0, index - Int((random.next() + 1) * 1.5))] }
        let works = (0..<most).map { _ in 60_000 + Int((random.next() + 1) * 220_000) }
        let clock = ContinuousClock(), started = clock.now
        let searched = schedule(reads, (1...most).map { [$0] }, works)
        print("\(most) small operations scheduled in \(clock.now - started) (\(searched.steps.count) steps)")
        XCTAssertEqual(searched.steps.flatMap(\.operations).sorted(), Array(0..<most))
        let many = ExecutionSchedule.maximumOperations + 1
        let alone = schedule(Array(repeating: [0], count: many), (1...many).map { [$0] }, Array(repeating: small, count: many))
        XCTAssertEqual(alone.steps, (0..<many).map { .operation($0) })
    }

    /// In every model: each operation runs once, in a step after those of everything it reads,
    /// and the branches of a step read nothing another branch of it writes.
    func testSchedulesRespectEveryDependency() throws {
        var branchSteps: [String: [String]] = [:], operationCounts: [String: Int] = [:]
        for name in Self.models {
            let program = try Model(contentsOf: try SharedTestData.installedModel("\(name).tflite")).program
            let schedule = program.schedule
            operationCounts[name] = program.operations.count
            XCTAssertEqual(schedule.steps.flatMap(\.operations).sorted(), Array(program.operations.indices), name)
            var producer: [Int: Int] = [:]
            for (index, op) in program.operations.enumerated() { for t in op.outputs { producer[t] = index } }
            var branchOf: [Int: Int] = [:]
            for step in schedule.steps {
                guard case let .branches(branches) = step else { continue }
                branchSteps[name, default: []].append("\(branches.count) branches of \(branches.map(\.count)) operators")
                XCTAssertGreaterThanOrEqual(branches.count, 2, name)
                for (b, branch) in branches.enumerated() {
                    XCTAssertEqual(branch, branch.sorted(), "\(name): a branch runs in program order")
                    for op in branch { branchOf[op] = b }
                }
            }
            for (index, op) in program.operations.enumerated() {
                for t in op.inputs {
                    guard let source = producer[t] else { continue }
                    let (from, to) = (schedule.stepOfOperation[source], schedule.stepOfOperation[index])
                    XCTAssertLessThanOrEqual(from, to, "\(name): operation \(index) runs before operation \(source), which it reads")
                    if from == to {
                        XCTAssertEqual(branchOf[source], branchOf[index], "\(name): operation \(index) reads another branch's output")
                        XCTAssertLessThan(source, index, name)
                    }
                }
            }
        }
        for name in Self.models {
            print("\(name): \(operationCounts[name] ?? 0) operations; steps of branches: "
                  + ((branchSteps[name] ?? []).isEmpty ? "none" : (branchSteps[name] ?? []).joined(separator: "; ")))
        }
        XCTAssertFalse((branchSteps["gesture_embedder"] ?? []).isEmpty, "the gesture embedder's two inputs' branches run side by side")
    }

    /// The gesture embedder (a step of branches) and pose_detection (none, but large operators
    /// split over the threads) give one thread's results at 2, 3 and 4 threads, and at 2 threads
    /// with the pool lowered to one active thread.
    func testBranchesGiveTheResultsOfOneThread() throws {
        for name in ["gesture_embedder", "pose_detection"] {
            let model = try Model(contentsOf: try SharedTestData.installedModel("\(name).tflite"))
            var random = TestRandom(state: 3)
            let inputs = model.inputs.map { random.floats($0.shape.reduce(1, *)) }
            let single = try outputs(of: try Interpreter(model: model, options: .init(threadCount: 1)), inputs)
            for threads in [2, 3, 4] {
                let interpreter = try Interpreter(model: model, options: .init(threadCount: threads))
                XCTAssertEqual(try outputs(of: interpreter, inputs), single, "\(name), \(threads) threads")
                XCTAssertEqual(try outputs(of: interpreter, inputs), single, "\(name), \(threads) threads, again")
            }
            let pool = try WorkerPool(threadCount: 2)
            let shared = try Interpreter(model: model, sharing: pool)
            pool.activeThreadCount = 1
            XCTAssertEqual(try outputs(of: shared, inputs), single, "\(name), one of two threads active")
        }
    }
}
