/// Output sizes and padding of convolutions and pooling, as TensorFlow Lite computes them.
struct ConvolutionGeometry: Sendable {
    var inputSize: Int
    var filterSize: Int
    var stride: Int
    var dilation: Int
    var padding: PaddingScheme

    var effectiveFilterSize: Int { (filterSize - 1) * dilation + 1 }

    /// nil when the filter does not fit (VALID padding on a too small input).
    var outputSize: Int? {
        switch padding {
        case .same: return (inputSize + stride - 1) / stride
        case .valid:
            let size = (inputSize - effectiveFilterSize + stride) / stride
            return inputSize >= effectiveFilterSize && size > 0 ? size : nil
        }
    }

    /// Padding before the first input element (the odd remainder goes after the last).
    var paddingBefore: Int {
        guard padding == .same, let output = outputSize else { return 0 }
        return max((output - 1) * stride + effectiveFilterSize - inputSize, 0) / 2
    }

    /// Checks strides and dilation and computes (output size, padding before) for one axis.
    static func resolve(input: Int, filter: Int, stride: Int, dilation: Int, padding: PaddingScheme,
                        axis: String, context: OperatorContext) throws -> (output: Int, before: Int) {
        guard stride >= 1, stride <= 1 << 16, dilation >= 1, dilation <= 1 << 16, filter >= 1 else {
            throw context.invalid("invalid \(axis) stride \(stride), dilation \(dilation) or filter size \(filter)")
        }
        let geometry = ConvolutionGeometry(inputSize: input, filterSize: filter, stride: stride, dilation: dilation, padding: padding)
        guard let output = geometry.outputSize else {
            throw context.invalid("the \(axis) filter extent \(geometry.effectiveFilterSize) does not fit the input size \(input) with VALID padding")
        }
        return (output, geometry.paddingBefore)
    }
}
