/// Where every activation tensor lives in one arena: tensors whose lifetimes (from the step
/// that writes them to the last step that reads them) overlap never share bytes. Built once per
/// model, in one of two layouts (`Layout`).
struct MemoryPlan: Sendable {
    /// How tensors are placed in the arena.
    enum Layout {
        /// Greedy by size: the largest tensors first, each at the lowest offset that does not
        /// collide with an overlapping tensor already placed. The smallest arena; for one thread.
        case packed
        /// For threads that share each operator's output by pixels (the calling thread the first
        /// part, the workers the rest): tensors take turns in slots, and every tensor of a slot
        /// is centred on the slot's middle. Memory reused from an earlier tensor is then written
        /// by the thread that wrote it before, below the middle the caller and above it the
        /// worker (at two threads), so a thread seldom writes a cache line the other core holds
        /// modified. With the packed layout a tensor's first half can land where an earlier
        /// tensor of another size had its second half, and the caller's writes there fetch
        /// their lines from the worker's core first (docs/benchmarks.md measures the
        /// difference). A slot's size is that of its largest tensor, so the arena is larger:
        /// 1.05 to 1.41 times the packed one for the six models over 1 ms
        /// (InterpreterTests.testCentredPlansStayUnderTwiceThePackedArena prints each).
        case centered
    }

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

        /// Whether the two tensors are alive at some step together.
        func overlaps(_ other: Lifetime) -> Bool { first <= other.last && other.first <= last }
    }

    static let alignment = 64

    init(lifetimes: [Lifetime], layout: Layout = .packed) {
        bytes = Dictionary(uniqueKeysWithValues: lifetimes.map { ($0.tensor, $0.bytes) })
        switch layout {
        case .packed: (offsets, size) = MemoryPlan.packed(lifetimes)
        case .centered: (offsets, size) = MemoryPlan.centred(lifetimes)
        }
    }

    /// Each tensor (largest first) at the lowest offset where it meets no tensor alive with it.
    private static func packed(_ lifetimes: [Lifetime]) -> (offsets: [Int: Int], size: Int) {
        var placed: [(offset: Int, end: Int, life: Lifetime)] = []
        var offsets: [Int: Int] = [:]
        var size = 0
        for item in largestFirst(lifetimes) {
            let length = aligned(item.bytes)
            let conflicts = placed
                .filter { $0.life.overlaps(item) }
                .sorted { $0.offset < $1.offset }
            var offset = 0
            for other in conflicts {
                if offset + length <= other.offset { break }
                offset = max(offset, other.end)
            }
            placed.append((offset, offset + length, item))
            offsets[item.tensor] = offset
            size = max(size, offset + length)
        }
        return (offsets, size)
    }

    /// Slots in order of need: each tensor (largest first) joins the first slot whose tensors all
    /// live at other times, or opens a new one as large as itself; it is placed centred on its
    /// slot's middle.
    private static func centred(_ lifetimes: [Lifetime]) -> (offsets: [Int: Int], size: Int) {
        var slots: [(half: Int, tensors: [Lifetime])] = []
        for item in largestFirst(lifetimes) {
            if let slot = slots.firstIndex(where: { !$0.tensors.contains { $0.overlaps(item) } }) {
                slots[slot].tensors.append(item)
            } else {
                slots.append((half(item.bytes), [item]))
            }
        }
        var offsets: [Int: Int] = [:]
        var size = 0
        for slot in slots {
            for item in slot.tensors { offsets[item.tensor] = size + slot.half - half(item.bytes) }
            size += 2 * slot.half
        }
        return (offsets, size)
    }

    /// Bytes from a tensor's start to its middle, aligned, when it is centred in a slot.
    private static func half(_ bytes: Int) -> Int {
        aligned((bytes + 1) / 2)
    }

    private static func largestFirst(_ lifetimes: [Lifetime]) -> [Lifetime] {
        lifetimes.sorted { $0.bytes != $1.bytes ? $0.bytes > $1.bytes : $0.tensor < $1.tensor }
    }

    private static func aligned(_ bytes: Int) -> Int {
        (bytes + alignment - 1) / alignment * alignment
    }

    /// The same tensors with no sharing at all (every tensor keeps its last value), for
    /// debugging.
    var unshared: MemoryPlan {
        var copy = self
        var offset = 0
        for tensor in bytes.keys.sorted() {
            copy.offsets[tensor] = offset
            offset += MemoryPlan.aligned(bytes[tensor] ?? 0)
        }
        copy.size = offset
        return copy
    }
}
