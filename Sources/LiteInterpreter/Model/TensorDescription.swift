/// The name, shape and element type of a model input or output.
public struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    /// The tensor's name in the model.
    public let name: String
    /// The tensor's dimensions, outermost first (e.g. [1, 224, 224, 3]).
    public let shape: [Int]
    /// The element type.
    public let dataType: TensorDataType

    /// A description from its parts.
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
