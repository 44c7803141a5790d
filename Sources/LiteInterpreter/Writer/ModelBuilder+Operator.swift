extension ModelBuilder {
    /// An activation fused into an operator's output (TFLite's `ActivationFunctionType`).
    public enum Activation: Sendable, Equatable {
        /// None: the output as computed.
        case none
        /// max(0, x).
        case relu
        /// min(max(-1, x), 1).
        case reluN1To1
        /// min(max(0, x), 6).
        case relu6
        /// tanh(x).
        case tanh

        var fused: FusedActivation {
            switch self {
            case .none: return .none
            case .relu: return .relu
            case .reluN1To1: return .reluN1To1
            case .relu6: return .relu6
            case .tanh: return .tanh
            }
        }
    }

    /// A builtin operator with its options, as `addOperator` writes it.
    public struct Operator: Sendable, Equatable {
        /// The operator code table entry: builtin code and version.
        struct Code: Sendable, Equatable {
            var builtin: Int32
            var version: Int32
        }

        /// The builtin options table (the `BuiltinOptions` union).
        enum Options: Sendable, Equatable {
            case none
            /// AddOptions (11), SubOptions (28), MulOptions (21), DivOptions (29): the fused activation.
            case activation(unionType: UInt8, FusedActivation)
            case fullyConnected(FusedActivation, keepNumDims: Bool)
            case softmax(beta: Float)
            case reshape(newShape: [Int32])
            case concatenation(axis: Int32, FusedActivation)
        }

        let code: Code
        let options: Options

        /// The schema's name of the operator, e.g. "FULLY_CONNECTED".
        public var name: String { BuiltinOperator.name(of: code.builtin) }

        private init(_ op: BuiltinOperator, version: Int32 = 1, _ options: Options = .none) {
            code = Code(builtin: op.rawValue, version: version)
            self.options = options
        }

        /// `ADD`: a + b, broadcast.
        public static func add(activation: Activation = .none) -> Operator {
            Operator(.add, .activation(unionType: 11, activation.fused))
        }

        /// `SUB`: a − b, broadcast.
        public static func sub(activation: Activation = .none) -> Operator {
            Operator(.sub, .activation(unionType: 28, activation.fused))
        }

        /// `MUL`: a × b, broadcast.
        public static func mul(activation: Activation = .none) -> Operator {
            Operator(.mul, .activation(unionType: 21, activation.fused))
        }

        /// `DIV`: a ÷ b, broadcast.
        public static func div(activation: Activation = .none) -> Operator {
            Operator(.div, .activation(unionType: 29, activation.fused))
        }

        /// `FULLY_CONNECTED`: inputs x, weights [units, depth] and an optional bias [units].
        public static func fullyConnected(activation: Activation = .none, keepNumDims: Bool = false) -> Operator {
            // Version 5 is the first that reads keep_num_dims.
            Operator(.fullyConnected, version: keepNumDims ? 5 : 1, .fullyConnected(activation.fused, keepNumDims: keepNumDims))
        }

        /// `SOFTMAX` over the last dimension: exp(beta·x) normalised.
        public static func softmax(beta: Float = 1) -> Operator {
            Operator(.softmax, .softmax(beta: beta))
        }

        /// `RESHAPE` to `newShape` (also given as the operator's options).
        public static func reshape(newShape: [Int]) -> Operator {
            Operator(.reshape, .reshape(newShape: newShape.map { Int32(clamping: $0) }))
        }

        /// `CONCATENATION` along `axis`.
        public static func concatenation(axis: Int, activation: Activation = .none) -> Operator {
            Operator(.concatenation, .concatenation(axis: Int32(clamping: axis), activation.fused))
        }

        /// `RELU`: max(0, x).
        public static let relu = Operator(.relu)
        /// `RELU6`: min(max(0, x), 6).
        public static let relu6 = Operator(.relu6)
        /// `LOGISTIC`: 1 / (1 + exp(−x)).
        public static let logistic = Operator(.logistic)
        /// `TANH`.
        public static let tanh = Operator(.tanh)

        /// Writes the options table; nil for operators without one.
        func writeOptions(_ builder: inout FlatBufferBuilder) -> (type: UInt8, table: FlatBufferBuilder.Offset)? {
            switch options {
            case .none:
                return nil
            case let .activation(type, activation):
                builder.startTable()
                builder.add(activation.rawValue, slot: 0)
                return (type, builder.endTable())
            case let .fullyConnected(activation, keepNumDims):
                builder.startTable()
                builder.add(activation.rawValue, slot: 0)
                if keepNumDims { builder.add(true, slot: 2) }
                return (8, builder.endTable())
            case let .softmax(beta):
                builder.startTable()
                builder.add(beta, slot: 0)
                return (9, builder.endTable())
            case let .reshape(newShape):
                let shape = builder.vector(newShape)
                builder.startTable()
                builder.add(shape, slot: 0)
                return (17, builder.endTable())
            case let .concatenation(axis, activation):
                builder.startTable()
                builder.add(axis, slot: 0)
                builder.add(activation.rawValue, slot: 1)
                return (10, builder.endTable())
            }
        }
    }
}
