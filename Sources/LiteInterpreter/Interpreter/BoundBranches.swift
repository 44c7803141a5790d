import CKernels

/// A step of independent branches (`ExecutionSchedule.Step.branches`) bound to one interpreter's
/// memory. The threads of the pool claim whole branches (the calling thread from the first, the
/// costliest, the workers from the last) and run each branch's operators on their own thread,
/// one after another; the step ends when every branch has.
final class BoundBranches: BoundOperation {
    /// Each branch's operators in order, unretained (`retained` keeps them alive).
    private let branches: [[Unmanaged<BoundOperation>]]
    private let retained: [[BoundOperation]]

    init(_ branches: [[BoundOperation]]) {
        retained = branches
        self.branches = branches.map { $0.map { Unmanaged.passUnretained($0) } }
    }

    override func run(pool: OpaquePointer?) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        ck_parallel_for(pool, branches.count, { context, begin, end in
            guard let context else { return }
            Unmanaged<BoundBranches>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.runBranches(begin..<end) }
        }, context)
    }

    /// Runs branches `range` on the calling thread (each operator without the pool).
    private func runBranches(_ range: Range<Int>) {
        for branch in branches[range] {
            for operation in branch { operation._withUnsafeGuaranteedRef { $0.run(pool: nil) } }
        }
    }
}
