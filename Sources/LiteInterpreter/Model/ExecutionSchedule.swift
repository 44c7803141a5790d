/// The order in which an interpreter runs a program's operators.
///
/// Most operators run one after another, each split over the threads by its kernel. A stretch
/// of consecutive small operators (under `smallWork` multiply-adds or output elements each) that
/// falls apart into independent branches, chains that read nothing another one writes, can run
/// as one step instead: the threads take whole branches and run each branch's operators alone,
/// side by side, with one hand-off for the step instead of one per operator. Detection heads are
/// such branches (a small convolution chain per anchor scale and output), and so are the small
/// layers after a fork. A stretch becomes a step when that saves work by a simple model of two
/// threads (`handOff`), the stretch that saves the most first. With one thread the branches of
/// a step run one after another.
///
/// Results do not depend on the schedule: every operator computes the same values on any thread.
/// The memory plans count a step of branches as one step, so no two tensors it uses share bytes.
struct ExecutionSchedule: Sendable, Equatable {
    /// One step of the schedule.
    enum Step: Sendable, Equatable {
        /// One operation (an index into the program's operations), split over the threads.
        case operation(Int)
        /// Two or more independent branches, each a list of operation indices in program order,
        /// the costliest branch first (the calling thread starts with it).
        case branches([[Int]])

        /// The operations of the step, branch after branch.
        var operations: [Int] {
            switch self {
            case let .operation(index): [index]
            case let .branches(branches): branches.flatMap { $0 }
            }
        }
    }

    /// Operators below this many multiply-adds (or output elements, for those that do none) may
    /// run side by side: at 1 to 4 µs on one core, splitting them costs about what it saves.
    static let smallWork = 1 << 19

    /// The steps in execution order; every operation is in exactly one.
    let steps: [Step]
    /// The step each operation runs in (indexed like the operations): non-decreasing.
    let stepOfOperation: [Int]

    /// The schedule for `operations` (in program order), given each one's tensors and work.
    init(inputs: [[Int]], outputs: [[Int]], work: [Int]) {
        var steps: [Step] = []
        var start = 0
        while start < work.count {
            var end = start
            while end < work.count, work[end] < Self.smallWork { end += 1 }
            if end > start {
                steps += Self.branches(of: start..<end, inputs: inputs, outputs: outputs, work: work)
                start = end
            } else {
                steps.append(.operation(start))
                start += 1
            }
        }
        var stepOf = [Int](repeating: 0, count: work.count)
        for (step, content) in steps.enumerated() {
            for operation in content.operations { stepOf[operation] = step }
        }
        self.steps = steps
        stepOfOperation = stepOf
    }

    /// The steps for a run of small operations: the stretch of it whose branches side by side
    /// save the most against running its operations one by one (`saving`) as one step, and the
    /// operations before and after it scheduled the same way; the operations one by one when no
    /// stretch saves anything.
    private static func branches(of run: Range<Int>, inputs: [[Int]], outputs: [[Int]], work: [Int]) -> [Step] {
        guard run.count >= 2 else { return run.map { .operation($0) } }
        var best: (span: Range<Int>, saving: Int)?
        for first in run.dropLast() {
            var parts = Parts()
            var oneByOne = 0
            for operation in first..<run.upperBound {
                parts.add(operation, work: work[operation], reading: inputs[operation], writing: outputs[operation])
                oneByOne += work[operation] >= 2 * handOff ? work[operation] / 2 + handOff : work[operation]
                guard parts.count >= 2 else { continue }
                let sideBySide = max(parts.largest, (parts.total + 1) / 2) + handOff
                if oneByOne - sideBySide > (best?.saving ?? 0) { best = (first..<operation + 1, oneByOne - sideBySide) }
            }
        }
        guard let span = best?.span else { return run.map { .operation($0) } }
        var parts = Parts()
        for operation in span { parts.add(operation, work: work[operation], reading: inputs[operation], writing: outputs[operation]) }
        return branches(of: run.lowerBound..<span.lowerBound, inputs: inputs, outputs: outputs, work: work)
            + [.branches(parts.branches)]
            + branches(of: span.upperBound..<run.upperBound, inputs: inputs, outputs: outputs, work: work)
    }

    /// What handing a step to the threads costs, in units of work: a kernel splits an operator
    /// from twice this much work on (`CK_PARALLEL_MIN_WORK`), below which the hand-off costs more
    /// than half the work saves. The savings model above: an operator split over two threads
    /// takes half its work and one hand-off, a step of branches its largest branch (or half of
    /// all its work, whichever is more) and one hand-off.
    static let handOff = 1 << 15

    /// Operations grouped into connected parts as they are added in program order (an operation
    /// joins the part of every earlier one whose output it reads): a union-find with each part's
    /// work.
    private struct Parts {
        private var parent: [Int: Int] = [:]
        private var work: [Int: Int] = [:]
        private var producer: [Int: Int] = [:]
        private var order: [Int] = []
        private(set) var count = 0
        private(set) var total = 0
        private(set) var largest = 0

        private func root(_ operation: Int) -> Int {
            var current = operation
            while let next = parent[current], next != current { current = next }
            return current
        }

        mutating func add(_ operation: Int, work cost: Int, reading: [Int], writing: [Int]) {
            parent[operation] = operation
            work[operation] = cost
            order.append(operation)
            count += 1
            total += cost
            for tensor in reading {
                guard let source = producer[tensor] else { continue }
                let (a, b) = (root(source), root(operation))
                guard a != b else { continue }
                let (kept, joined) = (min(a, b), max(a, b))
                parent[joined] = kept
                work[kept, default: 0] += work[joined] ?? 0
                count -= 1
            }
            largest = max(largest, work[root(operation)] ?? 0)
            for tensor in writing { producer[tensor] = operation }
        }

        /// The parts as branches (operations in program order), the costliest first.
        var branches: [[Int]] {
            var groups: [Int: [Int]] = [:]
            for operation in order { groups[root(operation), default: []].append(operation) }
            return groups.sorted { (work[$0.key] ?? 0, $1.key) > (work[$1.key] ?? 0, $0.key) }.map(\.value)
        }
    }
}
