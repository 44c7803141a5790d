/// TFLite's fused activation (`ActivationFunctionType`).
enum FusedActivation: Int8, Sendable {
    case none = 0
    case relu = 1
    case reluN1To1 = 2
    case relu6 = 3
    case tanh = 4
    case signBit = 5

    /// The clamp range this activation amounts to (tanh and sign-bit are not clamps).
    var clampRange: (lower: Float, upper: Float)? {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .reluN1To1: return (-1, 1)
        case .relu6: return (0, 6)
        case .tanh, .signBit: return nil
        }
    }
}

/// `Padding`.
enum PaddingScheme: Int8, Sendable {
    case same = 0
    case valid = 1
}

struct ConvolutionOptions: Sendable {
    var padding: PaddingScheme
    var strideW: Int, strideH: Int
    var dilationW: Int, dilationH: Int
    var depthMultiplier: Int
    var activation: FusedActivation
}

struct PoolOptions: Sendable {
    var padding: PaddingScheme
    var strideW: Int, strideH: Int
    var filterW: Int, filterH: Int
    var activation: FusedActivation
}

struct StridedSliceOptions: Sendable {
    var beginMask: Int32, endMask: Int32, ellipsisMask: Int32, newAxisMask: Int32, shrinkAxisMask: Int32
    var offset: Bool
}

/// The builtin options of an operator (the `BuiltinOptions` union), for the option tables the
/// interpreter reads. Field slots follow TFLite's `schema.fbs`.
enum OperatorOptions: Sendable {
    case none
    case convolution(ConvolutionOptions)
    case pool(PoolOptions)
    case fullyConnected(activation: FusedActivation, weightsFormat: Int8, keepNumDims: Bool)
    case softmax(beta: Float)
    case concatenation(axis: Int, activation: FusedActivation)
    /// AddOptions, SubOptions, MulOptions, DivOptions.
    case activation(FusedActivation)
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case reshape(newShape: [Int]?)
    case depthToSpace(blockSize: Int)
    case reducer(keepDims: Bool)
    case gather(axis: Int, batchDims: Int)
    case unpack(count: Int, axis: Int)
    case stridedSlice(StridedSliceOptions)
    /// Options that no supported operator reads (type code of the union).
    case other(type: UInt8)

    init(type: UInt8, table: FlatBufferTable?) throws {
        guard let t = table, type != 0 else {
            self = type == 0 ? .none : .other(type: type)
            return
        }
        func activation(_ slot: Int) throws -> FusedActivation {
            let raw = try t.scalar(slot, "fused_activation_function", default: Int8(0))
            guard let value = FusedActivation(rawValue: raw) else {
                throw ModelError.invalid("\(t.context): unknown fused activation \(raw)")
            }
            return value
        }
        func padding(_ slot: Int) throws -> PaddingScheme {
            let raw = try t.scalar(slot, "padding", default: Int8(0))
            guard let value = PaddingScheme(rawValue: raw) else {
                throw ModelError.invalid("\(t.context): unknown padding \(raw)")
            }
            return value
        }
        func int(_ slot: Int, _ name: String, _ value: Int32 = 0) throws -> Int {
            Int(try t.scalar(slot, name, default: value))
        }
        switch type {
        case 1: // Conv2DOptions
            self = .convolution(ConvolutionOptions(
                padding: try padding(0), strideW: try int(1, "stride_w"), strideH: try int(2, "stride_h"),
                dilationW: try int(4, "dilation_w_factor", 1), dilationH: try int(5, "dilation_h_factor", 1),
                depthMultiplier: 1, activation: try activation(3)))
        case 2: // DepthwiseConv2DOptions
            self = .convolution(ConvolutionOptions(
                padding: try padding(0), strideW: try int(1, "stride_w"), strideH: try int(2, "stride_h"),
                dilationW: try int(5, "dilation_w_factor", 1), dilationH: try int(6, "dilation_h_factor", 1),
                depthMultiplier: try int(3, "depth_multiplier", 1), activation: try activation(4)))
        case 5: // Pool2DOptions
            self = .pool(PoolOptions(
                padding: try padding(0), strideW: try int(1, "stride_w"), strideH: try int(2, "stride_h"),
                filterW: try int(3, "filter_width"), filterH: try int(4, "filter_height"),
                activation: try activation(5)))
        case 8: // FullyConnectedOptions
            self = .fullyConnected(activation: try activation(0),
                                   weightsFormat: try t.scalar(1, "weights_format", default: Int8(0)),
                                   keepNumDims: try t.bool(2, "keep_num_dims"))
        case 9: // SoftmaxOptions
            self = .softmax(beta: try t.float(0, "beta", default: 0))
        case 10: // ConcatenationOptions
            self = .concatenation(axis: try int(0, "axis"), activation: try activation(1))
        case 11, 21, 28, 29: // AddOptions, MulOptions, SubOptions, DivOptions
            self = .activation(try activation(0))
        case 15: // ResizeBilinearOptions (slots 0 and 1 are deprecated)
            self = .resizeBilinear(alignCorners: try t.bool(2, "align_corners"),
                                   halfPixelCenters: try t.bool(3, "half_pixel_centers"))
        case 17: // ReshapeOptions
            self = .reshape(newShape: try t.scalars(0, "new_shape", as: Int32.self)?.map(Int.init))
        case 94: // DepthToSpaceOptions
            self = .depthToSpace(blockSize: try int(0, "block_size"))
        case 27: // ReducerOptions
            self = .reducer(keepDims: try t.bool(0, "keep_dims"))
        case 23: // GatherOptions
            self = .gather(axis: try int(0, "axis"), batchDims: try int(1, "batch_dims"))
        case 64: // UnpackOptions
            self = .unpack(count: try int(0, "num"), axis: try int(1, "axis"))
        case 32: // StridedSliceOptions
            self = .stridedSlice(StridedSliceOptions(
                beginMask: try t.scalar(0, "begin_mask", default: 0), endMask: try t.scalar(1, "end_mask", default: 0),
                ellipsisMask: try t.scalar(2, "ellipsis_mask", default: 0),
                newAxisMask: try t.scalar(3, "new_axis_mask", default: 0),
                shrinkAxisMask: try t.scalar(4, "shrink_axis_mask", default: 0),
                offset: try t.bool(5, "offset")))
        default:
            self = .other(type: type)
        }
    }
}
