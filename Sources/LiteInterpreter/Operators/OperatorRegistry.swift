/// Maps each supported builtin operator to its preparation.
enum OperatorRegistry {
    static func prepare(_ context: OperatorContext) throws -> any PreparedOperation {
        switch context.code {
        case .conv2D: return try Conv2DOperation.prepare(context)
        case .depthwiseConv2D: return try DepthwiseConv2D.prepare(context)
        case .fullyConnected: return try FullyConnectedOperation.prepare(context)
        case .add, .sub, .mul, .div, .maximum, .minimum: return try ElementwiseBinaryOperation.prepare(context)
        case .prelu: return try PReLUOperation.prepare(context)
        case .logistic, .tanh, .relu, .relu6, .reluN1To1: return try UnaryOperation.prepare(context)
        case .softmax: return try SoftmaxOperation.prepare(context)
        case .maxPool2D: return try MaxPool2DOperation.prepare(context)
        case .pad: return try PadOperation.prepare(context)
        case .reshape: return try ReshapeOperation.prepare(context)
        case .concatenation: return try ConcatenationOperation.prepare(context)
        case .resizeBilinear: return try ResizeBilinearOperation.prepare(context)
        case .depthToSpace: return try DepthToSpaceOperation.prepare(context)
        case .mean, .reduceMax, .reduceMin: return try ReductionOperation.prepare(context)
        case .gather: return try GatherOperation.prepare(context)
        case .unpack: return try UnpackOperation.prepare(context)
        case .stridedSlice: return try StridedSliceOperation.prepare(context)
        case .dequantize, .densify:
            // Constant inputs were folded before this; anything else reaches here.
            throw context.unsupported("\(context.name) of a tensor computed at run time")
        }
    }
}
