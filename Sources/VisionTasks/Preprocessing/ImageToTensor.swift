import CKernels
@_spi(Apps) import LiteInterpreter

/// Where a tensor came from: what is needed to map the model's outputs back to the image.
package struct ImageToTensorTransform: Sendable, Hashable {
    /// The region actually cropped, in pixels (enlarged to the tensor's aspect ratio when
    /// letterboxing).
    package var roi: RotatedRect
    /// The letterbox padding of the tensor (zero unless keep-aspect-ratio).
    package var padding: LetterboxPadding
    /// Tensor → image mapping in normalised coordinates (MediaPipe's `MATRIX` output).
    package var matrix: ProjectionMatrix
    package var imageWidth: Int
    package var imageHeight: Int
}

/// MediaPipe's ImageToTensorCalculator on the CPU: crops a (rotated) region of an 8-bit image
/// into a float32 HWC tensor of 3 channels, bit for bit as MediaPipe 1.2.2 does it:
/// region from the normalised rect (or the whole image), letterbox padding when
/// keep-aspect-ratio is set, OpenCV's fixed-point bilinear warpPerspective on the 8-bit
/// pixels (C kernel), then `fma(pixel, scale, offset)` into the output range.
package enum ImageToTensor {
    /// Crops `region` (nil: the whole image) of `image` into `output`, which must hold
    /// outputWidth × outputHeight × 3 floats. `pool`: threads that share the output's rows (the
    /// interpreter's whose input `output` is, so that each thread writes the rows the model's
    /// first layer reads on it); nil: the calling thread alone. The result is the same either way.
    @discardableResult
    package static func convert(
        _ image: ImagePixels, region: NormalizedRect?, options: ImageToTensorOptions,
        into output: UnsafeMutableBufferPointer<Float>, pool: WorkerPool? = nil
    ) throws -> ImageToTensorTransform {
        try StageStopwatch.time(.imageToTensor) {
            let transform = try transform(
                imageWidth: image.width, imageHeight: image.height, region: region, options: options)
            try warp(image, roi: transform.roi, options: options, into: output, pool: pool)
            return transform
        }
    }

    /// Warps the pixel region `roi` (already padded, as in `ImageToTensorTransform.roi`) into
    /// `output` with the options' size, border and range, on `pool`'s threads (nil: the calling
    /// thread); no letterbox padding is added here.
    package static func warp(
        _ image: ImagePixels, roi: RotatedRect, options: ImageToTensorOptions,
        into output: UnsafeMutableBufferPointer<Float>, pool: WorkerPool? = nil
    ) throws {
        let w = options.outputWidth, h = options.outputHeight
        guard w > 0, h > 0, w <= 32767, h <= 32767 else {
            throw TasksError.invalidArgument(
                "Tensor size must be positive and at most 32767 per side, got \(w)×\(h).")
        }
        guard output.count == w * h * 3, let outBase = output.baseAddress else {
            throw TasksError.invalidArgument(
                "Output tensor holds \(output.count) floats, expected \(w)×\(h)×3 = \(w * h * 3).")
        }
        guard options.rangeMin < options.rangeMax else {
            throw TasksError.invalidArgument(
                "Invalid output range: min \(options.rangeMin) must be below max \(options.rangeMax).")
        }
        let border =
            options.borderMode == .zero
            ? Int32(CK_BORDER_ZERO.rawValue) : Int32(CK_BORDER_REPLICATE.rawValue)
        // The matrix lives on the stack: a frame's crops allocate nothing.
        let status = try withUnsafeTemporaryAllocation(of: Double.self, capacity: 9) { matrix -> Int32 in
            guard let inverse = matrix.baseAddress,
                PerspectiveTransform.cropMatrix(roi: roi, outputWidth: w, outputHeight: h, into: inverse)
            else {
                throw TasksError.invalidArgument(
                    "The region \(roi) cannot be mapped onto a \(w)×\(h) tensor (degenerate transform).")
            }
            let (scale, offset) = options.valueTransform
            guard let base = image.bytes.baseAddress else {
                throw TasksError.invalidArgument("Image buffer is empty.")
            }
            return ck_warp_perspective_u8_to_f32(
                base.assumingMemoryBound(to: UInt8.self), Int32(image.width), Int32(image.height),
                image.bytesPerRow, Int32(image.channels), inverse, border, scale, offset,
                outBase, Int32(w), Int32(h), pool?.handle)
        }
        guard status == Int32(CK_WARP_OK) else {
            throw TasksError.internalError("Image-to-tensor warp rejected its arguments (code \(status)).")
        }
    }

    /// The same, returning a new array.
    package static func convert(
        _ image: ImagePixels, region: NormalizedRect?, options: ImageToTensorOptions
    ) throws -> (tensor: [Float], transform: ImageToTensorTransform) {
        guard options.outputWidth > 0, options.outputHeight > 0,
            options.outputWidth <= 32767, options.outputHeight <= 32767
        else {
            throw TasksError.invalidArgument(
                "Tensor size must be positive and at most 32767 per side, got \(options.outputWidth)×\(options.outputHeight).")
        }
        var tensor = [Float](repeating: 0, count: options.outputWidth * options.outputHeight * 3)
        let transform = try tensor.withUnsafeMutableBufferPointer {
            try convert(image, region: region, options: options, into: $0)
        }
        return (tensor, transform)
    }

    /// The region, padding and matrix for a crop, without touching pixels (MediaPipe's
    /// `GetRoi`, `PadRoi`, `ValidateRoi` and `GetRotatedSubRectToRectTransformMatrix`).
    package static func transform(
        imageWidth: Int, imageHeight: Int, region: NormalizedRect?, options: ImageToTensorOptions
    ) throws -> ImageToTensorTransform {
        var roi = RotatedRect(region, imageWidth: imageWidth, imageHeight: imageHeight)
        var padding = LetterboxPadding.zero
        if options.keepAspectRatio {
            let tensorAspect = Float(options.outputHeight) / Float(options.outputWidth)
            guard roi.width > 0, roi.height > 0 else {
                throw TasksError.invalidArgument("ROI width and height must be > 0.")
            }
            let roiAspect = roi.height / roi.width
            var vertical: Float = 0, horizontal: Float = 0
            let newWidth: Float, newHeight: Float
            if tensorAspect > roiAspect {
                newWidth = roi.width
                newHeight = roi.width * tensorAspect
                vertical = (1.0 - roiAspect / tensorAspect) / 2.0
            } else {
                newWidth = roi.height / tensorAspect
                newHeight = roi.height
                horizontal = (1.0 - tensorAspect / roiAspect) / 2.0
            }
            roi.width = newWidth
            roi.height = newHeight
            padding = LetterboxPadding(left: horizontal, top: vertical, right: horizontal, bottom: vertical)
        }
        if roi.centerX.isNaN || roi.centerY.isNaN || roi.width.isNaN || roi.height.isNaN
            || roi.rotation.isNaN
        {
            throw TasksError.invalidArgument("ROI contains NaN values.")
        }
        guard roi.width > 0, roi.height > 0 else {
            throw TasksError.invalidArgument("ROI width and height must be > 0.")
        }
        guard roi.centerX.isFinite, roi.centerY.isFinite, roi.width.isFinite, roi.height.isFinite,
            roi.rotation.isFinite
        else {
            throw TasksError.invalidArgument("ROI contains infinite values.")
        }
        let matrix = ProjectionMatrix(roi: roi, imageWidth: imageWidth, imageHeight: imageHeight)
        return ImageToTensorTransform(
            roi: roi, padding: padding, matrix: matrix, imageWidth: imageWidth,
            imageHeight: imageHeight)
    }
}
