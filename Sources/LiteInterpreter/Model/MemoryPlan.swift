/// Where every activation tensor lives in one arena: tensors whose lifetimes (from the step
/// that writes them to the last step that reads them) overlap never share bytes. Built once per
/// model with the greedy-by-size strategy: the largest tensors are placed first, each at the
/// lowest offset that does not collide with an overlapping tensor already placed.
struct MemoryPlan: Sendable {
    /// Byte offset of each planned tensor.
    var offsets: [Int: Int]
    /// Arena size in bytes.
    var size: Int
    /// Bytes of each planned tensor.
    var bytes: [Int: Int]

    struct Lifetime {
        var tensor: Int
        var bytes: Int
        /// First and last step (inclusive) that use the tensor.
        var first: Int
        var last: Int
    }

    static let alignment = 64

    init(lifetimes: [Lifetime]) {
        let order = lifetimes.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.tensor < $1.tensor }
        var placed: [(offset: Int, end: Int, first: Int, last: Int)] = []
        var offsets: [Int: Int] = [:]
        var size = 0
        bytes = Dictionary(uniqueKeysWithValues: lifetimes.map { ($0.tensor, $0.bytes) })
        for item in order {
            let length = (item.bytes + MemoryPlan.alignment - 1) / MemoryPlan.alignment * MemoryPlan.alignment
            let conflicts = placed
                .filter { $0.first <= item.last && item.first <= $0.last }
                .sorted { $0.offset < $1.offset }
            var offset = 0
            for other in conflicts {
                if offset + length <= other.offset { break }
                offset = max(offset, other.end)
            }
            placed.append((offset, offset + length, item.first, item.last))
            offsets[item.tensor] = offset
            size = max(size, offset + length)
        }
        self.offsets = offsets
        self.size = size
    }

    /// The same tensors with no sharing at all (every tensor keeps its last value), for
    /// debugging.
    var unshared: MemoryPlan {
        var copy = self
        var offset = 0
        for tensor in bytes.keys.sorted() {
            copy.offsets[tensor] = offset
            offset += ((bytes[tensor] ?? 0) + MemoryPlan.alignment - 1) / MemoryPlan.alignment * MemoryPlan.alignment
        }
        copy.size = offset
        return copy
    }
}
