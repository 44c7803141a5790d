/// Maps detections from the model's input tensor back to the image.
extension Detection {
    /// Projects with the image-to-tensor transform matrix, as MediaPipe's
    /// DetectionProjectionCalculator (used by the hand detector): keypoints are transformed,
    /// and the box becomes the axis-aligned bounds of its 4 transformed corners.
    package func projected(by matrix: ProjectionMatrix) -> Detection {
        var out = self
        out.keypoints = keypoints.map { kp in
            let p = matrix.projectXY(kp.x, kp.y)
            return Keypoint(x: p.x, y: p.y)
        }
        let corners = [
            matrix.projectXY(xmin, ymin), matrix.projectXY(xmin + width, ymin),
            matrix.projectXY(xmin + width, ymin + height), matrix.projectXY(xmin, ymin + height),
        ]
        var left = Float.greatestFiniteMagnitude, top = Float.greatestFiniteMagnitude
        var right = -Float.greatestFiniteMagnitude, bottom = -Float.greatestFiniteMagnitude
        for p in corners {
            left = min(left, p.x)
            top = min(top, p.y)
            right = max(right, p.x)
            bottom = max(bottom, p.y)
        }
        out.xmin = left
        out.ymin = top
        out.width = right - left
        out.height = bottom - top
        return out
    }

    /// Removes letterbox padding, as MediaPipe's DetectionLetterboxRemovalCalculator (used by
    /// the pose detector): x' = (x − left) / (1 − left − right), and likewise for y.
    package func removingLetterbox(_ padding: LetterboxPadding) -> Detection {
        let leftAndRight = padding.left + padding.right
        let topAndBottom = padding.top + padding.bottom
        var out = self
        out.xmin = (xmin - padding.left) / (1.0 - leftAndRight)
        out.ymin = (ymin - padding.top) / (1.0 - topAndBottom)
        out.width = width / (1.0 - leftAndRight)
        out.height = height / (1.0 - topAndBottom)
        out.keypoints = keypoints.map {
            Keypoint(
                x: ($0.x - padding.left) / (1.0 - leftAndRight),
                y: ($0.y - padding.top) / (1.0 - topAndBottom))
        }
        return out
    }
}
