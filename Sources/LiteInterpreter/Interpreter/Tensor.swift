import Foundation

/// A copy of an interpreter's input or output tensor.
public struct Tensor: Sendable, Equatable {
    /// The tensor's name in the model.
    public let name: String
    /// The element type.
    public let dataType: TensorDataType
    /// The tensor's dimensions, outermost first.
    public let shape: [Int]
    /// The tensor's bytes (little-endian float32 values).
    public let data: Data

    /// A tensor from its parts.
    public init(name: String, dataType: TensorDataType, shape: [Int], data: Data) {
        self.name = name
        self.dataType = dataType
        self.shape = shape
        self.data = data
    }

    /// The values as float32.
    public var floats: [Float] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
