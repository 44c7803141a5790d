/// Expands a sparse tensor (TFLite `SparsityParameters`: a traversal order over the dense
/// dimensions and optional block dimensions, each level DENSE or SPARSE_CSR) into dense
/// row-major bytes. Every index, segment and size is checked, and the work is bounded by the
/// sizes of the dense tensor and the stored values.
enum Densifier {
    static func densify(shape: [Int], sparsity: SparsityDefinition, values: [UInt8], elementSize: Int,
                        context: String) throws -> [UInt8] {
        func invalid(_ message: String) -> ModelError { .invalid("\(context): \(message)") }
        let rank = shape.count
        let blocks = sparsity.blockMap.count
        let levels = rank + blocks
        let order = sparsity.traversalOrder
        guard order.count == levels, sparsity.dimensions.count == levels else {
            throw invalid("sparsity has \(order.count) traversal dimensions and \(sparsity.dimensions.count) dimension metadata for rank \(rank) with \(blocks) block dimensions")
        }
        guard Set(order.prefix(rank)) == Set(0..<rank), Set(order.suffix(blocks)) == Set(rank..<levels) else {
            throw invalid("traversal order \(order) is not a permutation of the dimensions")
        }
        guard Set(sparsity.blockMap).count == blocks, sparsity.blockMap.allSatisfy({ $0 >= 0 && $0 < rank }) else {
            throw invalid("block map \(sparsity.blockMap) is invalid for rank \(rank)")
        }
        // Block sizes come from the (dense) metadata of the block dimensions.
        var blockSize = [Int](repeating: 1, count: blocks)
        var levelOfDimension = [Int](repeating: 0, count: levels)
        for (level, dimension) in order.enumerated() { levelOfDimension[dimension] = level }
        for j in 0..<blocks {
            let meta = sparsity.dimensions[levelOfDimension[rank + j]]
            guard meta.format == .dense, meta.denseSize > 0 else {
                throw invalid("block dimension \(j) must be dense with a positive size")
            }
            blockSize[j] = meta.denseSize
        }
        // The extent of every traversal dimension.
        var extent = [Int](repeating: 0, count: levels)
        for d in 0..<rank {
            if let j = sparsity.blockMap.firstIndex(of: d) {
                guard shape[d] % blockSize[j] == 0 else {
                    throw invalid("dimension \(d) of size \(shape[d]) is not a multiple of its block size \(blockSize[j])")
                }
                extent[d] = shape[d] / blockSize[j]
            } else {
                extent[d] = shape[d]
            }
        }
        for j in 0..<blocks { extent[rank + j] = blockSize[j] }
        for (level, meta) in sparsity.dimensions.enumerated() where meta.format == .dense {
            guard meta.denseSize == extent[order[level]] else {
                throw invalid("dense size \(meta.denseSize) of traversal level \(level) does not match extent \(extent[order[level]])")
            }
        }

        let valueCount = values.count / elementSize
        guard values.count % elementSize == 0 else {
            throw invalid("\(values.count) value bytes are not a whole number of \(elementSize)-byte elements")
        }
        let denseCount = Shape.elementCount(shape)
        var dense = [UInt8](repeating: 0, count: denseCount * elementSize)
        let strides = Shape.strides(shape)
        var coordinate = [Int](repeating: 0, count: levels) // by dimension
        var work = 0
        let workLimit = 2 * (denseCount + valueCount) + 1024

        func visit(_ level: Int, _ position: Int) throws {
            work += 1
            guard work <= workLimit else { throw invalid("sparse structure visits more entries than the tensor holds") }
            if level == levels {
                guard position < valueCount else {
                    throw invalid("value index \(position) out of range (\(valueCount) values stored)")
                }
                var offset = 0
                for d in 0..<rank {
                    var c = coordinate[d]
                    if let j = sparsity.blockMap.firstIndex(of: d) { c = c * blockSize[j] + coordinate[rank + j] }
                    guard c < shape[d] else { throw invalid("coordinate \(c) out of range in dimension \(d)") }
                    offset += c * strides[d]
                }
                let source = position * elementSize, target = offset * elementSize
                for b in 0..<elementSize { dense[target + b] = values[source + b] }
                return
            }
            let dimension = order[level]
            let meta = sparsity.dimensions[level]
            switch meta.format {
            case .dense:
                for i in 0..<meta.denseSize {
                    coordinate[dimension] = i
                    try visit(level + 1, position * meta.denseSize + i)
                }
            case .sparseCSR:
                guard position + 1 < meta.segments.count else {
                    throw invalid("segment \(position) out of range at traversal level \(level) (\(meta.segments.count) segment bounds)")
                }
                let start = meta.segments[position], stop = meta.segments[position + 1]
                guard start >= 0, start <= stop, stop <= meta.indices.count else {
                    throw invalid("segment \(position) [\(start), \(stop)) is invalid at traversal level \(level) (\(meta.indices.count) indices)")
                }
                for j in start..<stop {
                    let c = meta.indices[j]
                    guard c >= 0, c < extent[dimension] else {
                        throw invalid("index \(c) out of range \(extent[dimension]) at traversal level \(level)")
                    }
                    coordinate[dimension] = c
                    try visit(level + 1, j)
                }
            }
        }
        try visit(0, 0)
        return dense
    }
}
