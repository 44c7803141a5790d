/// The name, shape and element type of a model input or output.
public struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    public let name: String
    public let shape: [Int]
    public let dataType: TensorDataType

    public init(name: String, shape: [Int], dataType: TensorDataType) {
        self.name = name
        self.shape = shape
        self.dataType = dataType
    }

    /// Number of elements (1 for a scalar).
    public var elementCount: Int { shape.reduce(1, *) }

    /// Size of the tensor's data in bytes.
    public var byteCount: Int { elementCount * (dataType.byteSize ?? 0) }

    public var description: String {
        "\(name.isEmpty ? "(unnamed)" : name) \(shape) \(dataType)"
    }
}
