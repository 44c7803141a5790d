/// How a section splits its runs into blocks taken in turns, so that a change in the machine's
/// load during the measurement reaches every side (our thread counts, or ours and the
/// reference) alike: `rounds` blocks (fewer when there are fewer runs), the runs shared out as
/// evenly as they go, the sides in forward order in even blocks and backward in odd ones.
struct BlockSchedule {
    let runs: Int
    let rounds: Int

    init(runs: Int, maximumRounds: Int) {
        self.runs = runs
        rounds = max(1, min(maximumRounds, runs))
    }

    /// The runs of block `block` (0 ..< rounds).
    func runs(inBlock block: Int) -> Int { runs / rounds + (block < runs % rounds ? 1 : 0) }

    /// The order of `sides` sides in block `block`.
    func order(of sides: Int, inBlock block: Int) -> [Int] {
        block % 2 == 0 ? Array(0..<sides) : (0..<sides).reversed()
    }
}
