/// One detected object (a palm or a person), as MediaPipe's `Detection` with a
/// `RELATIVE_BOUNDING_BOX` location: the box and keypoints are normalised to the image (or,
/// before projection, to the model's input tensor).
package struct Detection: Sendable, Hashable {
    /// A keypoint in normalised coordinates.
    package struct Keypoint: Sendable, Hashable {
        package var x: Float
        package var y: Float
        package init(x: Float, y: Float) {
            self.x = x
            self.y = y
        }
    }

    /// The (sigmoid) score of the best class.
    package var score: Float
    /// The index of the best class (0 for single-class detectors).
    package var labelID: Int
    package var xmin: Float
    package var ymin: Float
    package var width: Float
    package var height: Float
    package var keypoints: [Keypoint]

    package init(
        score: Float, labelID: Int = 0, xmin: Float, ymin: Float, width: Float, height: Float,
        keypoints: [Keypoint] = []
    ) {
        self.score = score
        self.labelID = labelID
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
        self.keypoints = keypoints
    }

    /// The box as MediaPipe's `Rectangle_f` sees it (min corner and max = min + size).
    package var box: AxisAlignedBox {
        AxisAlignedBox(xmin: xmin, ymin: ymin, xmax: xmin + width, ymax: ymin + height)
    }
}
