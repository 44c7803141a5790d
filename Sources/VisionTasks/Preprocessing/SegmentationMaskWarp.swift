import CKernels
import Foundation
import LiteInterpreter

/// The pose landmarker's segmentation mask path on the CPU (pose_landmarks_detector_graph.cc):
/// TensorsToSegmentationCalculator applies a sigmoid to the model's 256×256 logits, then
/// WarpAffineCalculator maps the mask from the crop back onto the whole image with OpenCV's
/// classic float warpAffine (INTER_LINEAR, zero border), using the inverse of the crop's
/// projection matrix.
package enum SegmentationMaskWarp {
    /// `1 / (exp(−x) + 1)` with MediaPipe's arithmetic (float exp, double division).
    package static func sigmoid(_ logits: [Float]) -> [Float] {
        logits.map { Float(1.0 / (Double(expf(-$0)) + 1.0)) }
    }

    /// The destination-pixel → mask-pixel affine matrix (2×3, row-major) of MediaPipe's
    /// OpenCV affine runner: scale(mask size) · inverse(crop matrix) · scale(1/image size).
    /// The inverse is taken in double (MediaPipe uses Eigen's float 4×4 inverse, so the last
    /// bits can differ).
    package static func affineMatrix(
        crop matrix: ProjectionMatrix, maskWidth: Int, maskHeight: Int, imageWidth: Int,
        imageHeight: Int
    ) -> [Double]? {
        guard let inverse = matrix.inverted() else { return nil }
        let srcScale: [Float] = [
            Float(maskWidth), 0, 0, 0, 0, Float(maskHeight), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
        ]
        let dstScale: [Float] = [
            1.0 / Float(imageWidth), 0, 0, 0, 0, 1.0 / Float(imageHeight), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
        ]
        let t = multiply(multiply(srcScale, inverse.values), dstScale)
        return [t[0], t[1], t[3], t[4], t[5], t[7]].map(Double.init)
    }

    /// cv::Matx44f product: float sums in k order, starting from 0.
    private static func multiply(_ a: [Float], _ b: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: 16)
        for i in 0..<4 {
            for j in 0..<4 {
                var s: Float = 0
                for k in 0..<4 { s += a[i * 4 + k] * b[k * 4 + j] }
                out[i * 4 + j] = s
            }
        }
        return out
    }

    /// Warps a mask (probabilities) of maskWidth × maskHeight onto an image of
    /// imageWidth × imageHeight; outside the crop the mask is 0. `pool`: threads that share the
    /// image's rows (nil: the calling thread alone); the result is the same either way.
    package static func warp(
        mask: [Float], maskWidth: Int, maskHeight: Int, crop matrix: ProjectionMatrix,
        imageWidth: Int, imageHeight: Int, pool: WorkerPool? = nil
    ) throws -> [Float] {
        guard maskWidth > 0, maskHeight > 0, mask.count == maskWidth * maskHeight else {
            throw TasksError.invalidArgument(
                "Segmentation mask holds \(mask.count) values, expected \(maskWidth)×\(maskHeight).")
        }
        guard imageWidth > 0, imageHeight > 0, imageWidth <= 32767, imageHeight <= 32767 else {
            throw TasksError.invalidArgument("Image size must be positive, got \(imageWidth)×\(imageHeight).")
        }
        guard
            let m = affineMatrix(
                crop: matrix, maskWidth: maskWidth, maskHeight: maskHeight, imageWidth: imageWidth,
                imageHeight: imageHeight)
        else {
            throw TasksError.invalidArgument("The crop matrix of the segmentation mask cannot be inverted.")
        }
        var out = [Float](repeating: 0, count: imageWidth * imageHeight)
        let status = mask.withUnsafeBufferPointer { src in
            m.withUnsafeBufferPointer { mp in
                out.withUnsafeMutableBufferPointer { dst in
                    ck_warp_affine_f32c1(
                        src.baseAddress, Int32(maskWidth), Int32(maskHeight), maskWidth,
                        mp.baseAddress, Int32(CK_BORDER_ZERO.rawValue), 0, dst.baseAddress,
                        Int32(imageWidth), Int32(imageHeight), pool?.handle)
                }
            }
        }
        guard status == Int32(CK_WARP_OK) else {
            throw TasksError.internalError("Segmentation mask warp rejected its arguments (code \(status)).")
        }
        return out
    }
}
