/// Builds small TFLite model files for tests, following TFLite's `schema.fbs` field slots.
struct TestModel {
    struct Tensor {
        var shape: [Int32]
        var type: Int8 = 0
        var buffer: UInt32 = 0
        var name = ""
        var extraFields: [(slot: Int, value: FBField)] = []
    }

    struct Operator {
        var opcodeIndex: UInt32
        var inputs: [Int32]
        var outputs: [Int32]
        var optionsType: UInt8 = 0
        var options: [(slot: Int, value: FBField)]?
    }

    /// Builtin codes; codes of 127 and above go in the 32-bit field with 127 in the old one.
    var operatorCodes: [Int32] = []
    var tensors: [Tensor] = []
    var operators: [Operator] = []
    var inputs: [Int32] = []
    var outputs: [Int32] = []
    /// Buffer 0 is the empty buffer by convention.
    var buffers: [FBObject] = [.table([])]
    var metadata: [(name: String, buffer: UInt32)] = []

    /// Adds a buffer holding `bytes`; returns its index.
    mutating func addBuffer(_ bytes: [UInt8]) -> UInt32 {
        buffers.append(.table([(0, .object(.bytes(bytes)))]))
        return UInt32(buffers.count - 1)
    }

    @discardableResult
    mutating func addTensor(_ shape: [Int], type: Int8 = 0, data: [UInt8]? = nil, name: String = "") -> Int32 {
        let buffer = data.map { addBuffer($0) } ?? 0
        tensors.append(Tensor(shape: shape.map(Int32.init), type: type, buffer: buffer, name: name))
        return Int32(tensors.count - 1)
    }

    mutating func addConstant(_ shape: [Int], _ values: [Float]) -> Int32 {
        addTensor(shape, data: values.flatMap { le($0.bitPattern) })
    }

    mutating func addInts(_ shape: [Int], _ values: [Int32]) -> Int32 {
        addTensor(shape, type: 2, data: values.flatMap { le($0) })
    }

    mutating func addOperator(code: Int32, inputs: [Int32], outputs: [Int32], optionsType: UInt8 = 0,
                              options: [(slot: Int, value: FBField)]? = nil) {
        let index: Int
        if let existing = operatorCodes.firstIndex(of: code) {
            index = existing
        } else {
            operatorCodes.append(code)
            index = operatorCodes.count - 1
        }
        operators.append(Operator(opcodeIndex: UInt32(index), inputs: inputs, outputs: outputs, optionsType: optionsType, options: options))
    }

    func serialize(identifier: String = "TFL3", appending tail: [UInt8] = []) -> [UInt8] {
        let codes: [FBObject] = operatorCodes.map { code in
            .table([(0, .int8(Int8(min(code, 127)))), (2, .int32(1)), (3, .int32(code))])
        }
        let tensorTables: [FBObject] = tensors.map { t in
            var fields: [(slot: Int, value: FBField)] = [(0, .object(.int32s(t.shape))), (1, .int8(t.type)), (2, .uint32(t.buffer))]
            if !t.name.isEmpty { fields.append((3, .object(.string(t.name)))) }
            return .table(fields + t.extraFields)
        }
        let operatorTables: [FBObject] = operators.map { op in
            var fields: [(slot: Int, value: FBField)] = [(0, .uint32(op.opcodeIndex)), (1, .object(.int32s(op.inputs))), (2, .object(.int32s(op.outputs)))]
            if let options = op.options {
                fields += [(3, .uint8(op.optionsType)), (4, .object(.table(options)))]
            }
            return .table(fields)
        }
        let subgraph: FBObject = .table([
            (0, .object(.tables(tensorTables))), (1, .object(.int32s(inputs))),
            (2, .object(.int32s(outputs))), (3, .object(.tables(operatorTables))),
        ])
        var root: [(slot: Int, value: FBField)] = [
            (0, .uint32(3)), (1, .object(.tables(codes))), (2, .object(.tables([subgraph]))),
            (4, .object(.tables(buffers))),
        ]
        if !metadata.isEmpty {
            root.append((6, .object(.tables(metadata.map { .table([(0, .object(.string($0.name))), (1, .uint32($0.buffer))]) }))))
        }
        return FlatBufferWriter.serialize(root: .table(root), identifier: identifier) + tail
    }
}

/// Builtin operator codes and option union types used by the tests.
enum Op {
    static let add: Int32 = 0, concatenation: Int32 = 2, conv2D: Int32 = 3, depthwiseConv2D: Int32 = 4
    static let depthToSpace: Int32 = 5, dequantize: Int32 = 6, fullyConnected: Int32 = 9, logistic: Int32 = 14
    static let maxPool2D: Int32 = 17, mul: Int32 = 18, relu: Int32 = 19, relu6: Int32 = 21, reshape: Int32 = 22
    static let resizeBilinear: Int32 = 23, softmax: Int32 = 25, tanh: Int32 = 28, pad: Int32 = 34, gather: Int32 = 36
    static let mean: Int32 = 40, sub: Int32 = 41, div: Int32 = 42, stridedSlice: Int32 = 45, prelu: Int32 = 54
    static let maximum: Int32 = 55, reduceMax: Int32 = 82, unpack: Int32 = 88, reduceMin: Int32 = 89, densify: Int32 = 124
    static let hardSwish: Int32 = 117
}

enum Options {
    static let conv2D: UInt8 = 1, depthwiseConv2D: UInt8 = 2, pool2D: UInt8 = 5, fullyConnected: UInt8 = 8
    static let softmax: UInt8 = 9, concatenation: UInt8 = 10, add: UInt8 = 11, resizeBilinear: UInt8 = 15
    static let mul: UInt8 = 21, gather: UInt8 = 23, reducer: UInt8 = 27, sub: UInt8 = 28, div: UInt8 = 29
    static let stridedSlice: UInt8 = 32, unpack: UInt8 = 64, depthToSpace: UInt8 = 94
}
