/// A tensor of the model as the preparation sees it: validated shape and type.
struct TensorInfo: Sendable {
    var index: Int
    var name: String
    var shape: [Int]
    var dataType: TensorDataType
    var elementCount: Int

    var rank: Int { shape.count }
    var byteCount: Int { elementCount * (dataType.byteSize ?? 0) }

    /// "tensor 12 (name)" for messages.
    var label: String { name.isEmpty ? "tensor \(index)" : "tensor \(index) (\(name))" }
}

/// Shape arithmetic shared by the operators.
enum Shape {
    static func elementCount(_ shape: [Int]) -> Int { shape.reduce(1, *) }

    /// Normalises a possibly negative axis; nil when out of range.
    static func axis(_ axis: Int, rank: Int) -> Int? {
        let value = axis < 0 ? axis + rank : axis
        return value >= 0 && value < rank ? value : nil
    }

    /// Row-major strides in elements.
    static func strides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        var running = 1
        for d in stride(from: shape.count - 1, through: 0, by: -1) {
            strides[d] = running
            running *= shape[d]
        }
        return strides
    }

    /// numpy broadcasting of two shapes; nil when incompatible.
    static func broadcast(_ a: [Int], _ b: [Int]) -> [Int]? {
        let rank = max(a.count, b.count)
        var result = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.count ? 1 : a[i - (rank - a.count)]
            let db = i < rank - b.count ? 1 : b[i - (rank - b.count)]
            if da == db || db == 1 { result[i] = da } else if da == 1 { result[i] = db } else { return nil }
        }
        return result
    }
}
