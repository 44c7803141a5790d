/// The order in which an interpreter runs a program's operators.
///
/// Most operators run one after another, each split over the threads by its kernel. A stretch
/// of consecutive small operators (under `smallWork` multiply-adds or output elements each) that
/// falls apart into independent branches, chains that read nothing another one writes, can run
/// as one step instead: the threads take whole branches and run each branch's operators alone,
/// side by side, with one hand-off for the step instead of one per operator. Detection heads are
/// such branches (a small convolution chain per anchor scale and output), and so are the small
/// layers after a fork. A stretch becomes a step when that saves time by a simple model of two
/// threads (`handOff`, `remoteRead`), the stretch that saves the most first. With one thread the
/// branches of a step run one after another.
///
/// Results do not depend on the schedule: every operator computes the same values on any thread.
/// The memory plans count a step of branches as one step, so no two tensors it uses share bytes.
struct ExecutionSchedule: Sendable {
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

    /// What the schedule needs to know of an operation.
    struct Node: Sendable {
        /// Tensors read at run time and tensors written.
        var inputs: [Int]
        var outputs: [Int]
        /// Multiply-adds, or output elements for operations that do none.
        var work: Int
    }

    /// Operators below this much work may run side by side: 4 µs on one core at the fastest rate
    /// of pose_detection's layers on the Intel Xeon of docs/benchmarks.md (142 GMAC/s), 75 µs at
    /// the slowest (7 GMAC/s; `vision-tasks-bench --profile-operators --threads 1 --runs 100
    /// --no-litert --models pose_detection.tflite`, column GMAC/s). Larger ones stay split.
    static let smallWork = 1 << 19

    /// What handing a step to the threads costs, in units of work (a multiply-add): a kernel
    /// splits an operator from twice this much work on (`CK_PARALLEL_MIN_WORK`), below which the
    /// hand-off costs more than half the work saves. In the model, an operator split over two
    /// threads takes half its work and one hand-off (all its work when it is too small to
    /// split); a step of branches takes its largest branch (or half of all its work, whichever
    /// is more), one hand-off, and `remoteRead` for every element its branches read from
    /// outside the step.
    static let handOff = 1 << 15

    /// The price of reading an element another core wrote, per element a branch reads from before
    /// its step, in units of work. A branch reads those inputs whole on one thread, where operators
    /// split the same way read mostly their own thread's part: about half of it moves between the
    /// cores, at 3-8 ns a 64-byte line on the Intel Xeon of docs/benchmarks.md
    /// (`scripts/dev/cross-core-reads`) against some 0.02 ns a multiply-add (50 GMAC/s, within the
    /// range of `smallWork`'s profile), and the two threads share the wait. pose_detection's
    /// detection heads, which read 56x56, 28x28 and 14x14 feature maps, ran no faster side by side
    /// than split (docs/benchmarks.md); the gesture embedder, whose branches read 63 landmarks
    /// each, runs 1.6-1.7x faster at two threads than at one (1.0-1.1x split).
    static let remoteRead = 4

    /// The longest stretch of operations searched for branches at once (a longer run of small
    /// operations is searched in pieces of this length), and the most operations a program may
    /// have for the search to run at all (beyond it, every operation runs alone): the search
    /// takes time in the square of a stretch's length, and model files are untrusted.
    static let maximumStretch = 128
    static let maximumOperations = 4096

    /// The steps in execution order; every operation is in exactly one.
    let steps: [Step]
    /// The step each operation runs in (indexed like the operations): non-decreasing.
    let stepOfOperation: [Int]

    /// The schedule for `nodes` (the operations in program order); `elements`: the element
    /// count of each tensor written at run time (graph inputs and operations' outputs).
    init(_ nodes: [Node], elements: [Int: Int]) {
        guard nodes.count <= Self.maximumOperations else {
            steps = nodes.indices.map { .operation($0) }
            stepOfOperation = Array(nodes.indices)
            return
        }
        var steps: [Step] = []
        var start = 0
        while start < nodes.count {
            var end = start
            while end < nodes.count, end - start < Self.maximumStretch, nodes[end].work < Self.smallWork { end += 1 }
            if end > start {
                steps += Self.branches(of: start..<end, nodes, elements: elements)
                start = end
            } else {
                steps.append(.operation(start))
                start += 1
            }
        }
        var stepOf = [Int](repeating: 0, count: nodes.count)
        for (step, content) in steps.enumerated() {
            for operation in content.operations { stepOf[operation] = step }
        }
        self.steps = steps
        stepOfOperation = stepOf
    }

    /// The steps for a run of small operations: the stretch of it whose branches side by side
    /// save the most against its operations one by one, as one step, and the operations before
    /// and after it scheduled the same way; the operations one by one when no stretch saves.
    private static func branches(of run: Range<Int>, _ nodes: [Node], elements: [Int: Int]) -> [Step] {
        var best: (span: Range<Int>, saving: Int)?
        for first in run.dropLast() {
            var parts = Parts()
            var oneByOne = 0
            for operation in first..<run.upperBound {
                let node = nodes[operation]
                parts.add(operation, node, elements: elements)
                oneByOne += node.work >= 2 * handOff ? node.work / 2 + handOff : node.work
                guard parts.count >= 2 else { continue }
                let sideBySide = max(parts.largest, (parts.total + 1) / 2) + handOff + remoteRead * parts.readFromBefore
                if oneByOne - sideBySide > (best?.saving ?? 0) { best = (first..<operation + 1, oneByOne - sideBySide) }
            }
        }
        guard let span = best?.span else { return run.map { .operation($0) } }
        var parts = Parts()
        for operation in span { parts.add(operation, nodes[operation], elements: elements) }
        return branches(of: run.lowerBound..<span.lowerBound, nodes, elements: elements)
            + [.branches(parts.branches)]
            + branches(of: span.upperBound..<run.upperBound, nodes, elements: elements)
    }

    /// Operations grouped into connected parts as they are added in program order (an operation
    /// joins the part of every earlier one whose output it reads): a union-find with each part's
    /// work.
    private struct Parts {
        private var parent: [Int: Int] = [:]
        private var work: [Int: Int] = [:]
        private var producer: [Int: Int] = [:]
        private var order: [Int] = []
        /// The number of parts, their work together and the largest part's.
        private(set) var count = 0
        private(set) var total = 0
        private(set) var largest = 0
        /// Elements the operations read of tensors written before the first one.
        private(set) var readFromBefore = 0

        private func root(_ operation: Int) -> Int {
            var current = operation
            while let next = parent[current], next != current { current = next }
            return current
        }

        mutating func add(_ operation: Int, _ node: Node, elements: [Int: Int]) {
            parent[operation] = operation
            work[operation] = node.work
            order.append(operation)
            count += 1
            total += node.work
            for tensor in node.inputs {
                guard let source = producer[tensor] else {
                    readFromBefore += elements[tensor] ?? 0
                    continue
                }
                let (a, b) = (root(source), root(operation))
                guard a != b else { continue }
                let (kept, joined) = (min(a, b), max(a, b))
                parent[joined] = kept
                work[kept, default: 0] += work[joined] ?? 0
                count -= 1
            }
            largest = max(largest, work[root(operation)] ?? 0)
            for tensor in node.outputs { producer[tensor] = operation }
        }

        /// The parts as branches (operations in program order), the costliest first.
        var branches: [[Int]] {
            var groups: [Int: [Int]] = [:]
            for operation in order { groups[root(operation), default: []].append(operation) }
            return groups.sorted { (work[$0.key] ?? 0, $1.key) > (work[$1.key] ?? 0, $0.key) }.map(\.value)
        }
    }
}
