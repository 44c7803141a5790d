import Foundation

/// Options of MediaPipe's TensorsToDetectionsCalculator for models that output raw boxes and
/// scores (no post-processing op): how to read each box's coordinates and keypoints and how
/// to turn class logits into scores.
package struct DetectionDecoderOptions: Sendable, Hashable {
    /// The order of the 4 box values in the raw tensor.
    package enum BoxFormat: Sendable, Hashable {
        /// y centre, x centre, height, width (MediaPipe's default).
        case yxhw
        /// x centre, y centre, width, height (`reverse_output_order: true`).
        case xywh
        /// Offsets of the left, top, right and bottom edges from the anchor centre.
        case xyxy
    }

    package var numClasses: Int
    package var numBoxes: Int
    package var numCoords: Int
    package var boxCoordOffset: Int = 0
    package var keypointCoordOffset: Int = 0
    package var numKeypoints: Int = 0
    package var numValuesPerKeypoint: Int = 2
    package var boxFormat: BoxFormat = .yxhw
    package var xScale: Float
    package var yScale: Float
    package var wScale: Float
    package var hScale: Float
    package var applyExponentialOnBoxSize = false
    package var sigmoidScore = false
    /// Logits are clipped to ±this before the sigmoid (nil: no clipping).
    package var scoreClippingThreshold: Float?
    /// Boxes whose score is below this are dropped (nil: keep all).
    package var minScoreThreshold: Float?
    package var flipVertically = false
    /// Stop after this many detections (−1: no limit).
    package var maxResults: Int = -1

    package init(
        numClasses: Int, numBoxes: Int, numCoords: Int, boxCoordOffset: Int = 0,
        keypointCoordOffset: Int = 0, numKeypoints: Int = 0, numValuesPerKeypoint: Int = 2,
        boxFormat: BoxFormat = .yxhw, xScale: Float, yScale: Float, wScale: Float, hScale: Float,
        applyExponentialOnBoxSize: Bool = false, sigmoidScore: Bool = false,
        scoreClippingThreshold: Float? = nil, minScoreThreshold: Float? = nil,
        flipVertically: Bool = false, maxResults: Int = -1
    ) {
        self.numClasses = numClasses
        self.numBoxes = numBoxes
        self.numCoords = numCoords
        self.boxCoordOffset = boxCoordOffset
        self.keypointCoordOffset = keypointCoordOffset
        self.numKeypoints = numKeypoints
        self.numValuesPerKeypoint = numValuesPerKeypoint
        self.boxFormat = boxFormat
        self.xScale = xScale
        self.yScale = yScale
        self.wScale = wScale
        self.hScale = hScale
        self.applyExponentialOnBoxSize = applyExponentialOnBoxSize
        self.sigmoidScore = sigmoidScore
        self.scoreClippingThreshold = scoreClippingThreshold
        self.minScoreThreshold = minScoreThreshold
        self.flipVertically = flipVertically
        self.maxResults = maxResults
    }

    /// The palm detector (hand_detector_graph.cc): 2016 boxes × 18 values (box + 7
    /// keypoints), x-first order, scale 192, sigmoid with clipping at ±100.
    package static func palmDetection(minScore: Float) -> DetectionDecoderOptions {
        DetectionDecoderOptions(
            numClasses: 1, numBoxes: 2016, numCoords: 18, boxCoordOffset: 0,
            keypointCoordOffset: 4, numKeypoints: 7, numValuesPerKeypoint: 2, boxFormat: .xywh,
            xScale: 192, yScale: 192, wScale: 192, hScale: 192, sigmoidScore: true,
            scoreClippingThreshold: 100, minScoreThreshold: minScore)
    }

    /// The pose detector (pose_detector_graph.cc): 2254 boxes × 12 values (box + 4
    /// keypoints), x-first order, scale 224, sigmoid with clipping at ±100.
    package static func poseDetection(minScore: Float) -> DetectionDecoderOptions {
        DetectionDecoderOptions(
            numClasses: 1, numBoxes: 2254, numCoords: 12, boxCoordOffset: 0,
            keypointCoordOffset: 4, numKeypoints: 4, numValuesPerKeypoint: 2, boxFormat: .xywh,
            xScale: 224, yScale: 224, wScale: 224, hScale: 224, sigmoidScore: true,
            scoreClippingThreshold: 100, minScoreThreshold: minScore)
    }
}

/// Turns an SSD detector's raw box and score tensors into detections, as MediaPipe's
/// TensorsToDetectionsCalculator (CPU path, anchors given): decodes every box against its
/// anchor, takes each box's best class score (after clipping and sigmoid), and keeps boxes
/// whose score reaches the threshold and whose size is not negative or NaN. The result is in
/// anchor order; non-max suppression comes next.
package struct DetectionDecoder: Sendable {
    package let options: DetectionDecoderOptions
    package let anchors: [Anchor]

    package init(options: DetectionDecoderOptions, anchors: [Anchor]) throws {
        guard options.numBoxes > 0, options.numClasses > 0 else {
            throw TasksError.invalidArgument(
                "Detection decoder: num_boxes and num_classes must be positive.")
        }
        guard options.numValuesPerKeypoint == 2 else {
            throw TasksError.invalidArgument(
                "Detection decoder: only 2 values per keypoint are supported, got \(options.numValuesPerKeypoint).")
        }
        guard options.numKeypoints >= 0, options.boxCoordOffset >= 0,
            options.keypointCoordOffset >= 0,
            options.numCoords == options.numKeypoints * options.numValuesPerKeypoint + 4,
            options.boxCoordOffset + 4 <= options.numCoords,
            options.keypointCoordOffset + options.numKeypoints * 2 <= options.numCoords
        else {
            throw TasksError.invalidArgument(
                "Detection decoder: num_coords (\(options.numCoords)) must be 4 + 2 × num_keypoints (\(options.numKeypoints)), with the box and keypoint offsets inside it.")
        }
        guard anchors.count == options.numBoxes else {
            throw TasksError.invalidArgument(
                "Detection decoder: \(options.numBoxes) boxes need \(options.numBoxes) anchors, got \(anchors.count).")
        }
        self.options = options
        self.anchors = anchors
    }

    /// Decodes `boxes` (numBoxes × numCoords floats) and `scores` (numBoxes × numClasses).
    package func decode(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>) throws
        -> [Detection]
    {
        let o = options
        guard boxes.count == o.numBoxes * o.numCoords else {
            throw TasksError.invalidArgument(
                "Detection decoder: the box tensor has \(boxes.count) values, expected \(o.numBoxes) × \(o.numCoords).")
        }
        guard scores.count == o.numBoxes * o.numClasses else {
            throw TasksError.invalidArgument(
                "Detection decoder: the score tensor has \(scores.count) values, expected \(o.numBoxes) × \(o.numClasses).")
        }
        var detections: [Detection] = []
        for i in 0..<o.numBoxes {
            if o.maxResults > 0 && detections.count == o.maxResults { break }
            // Best class.
            var classID = -1
            var maxScore = -Float.greatestFiniteMagnitude
            for c in 0..<o.numClasses {
                var score = scores[i * o.numClasses + c]
                if o.sigmoidScore {
                    if let clip = o.scoreClippingThreshold {
                        score = score < -clip ? -clip : score
                        score = score > clip ? clip : score
                    }
                    score = 1.0 / (1.0 + expf(-score))
                }
                if maxScore < score {
                    maxScore = score
                    classID = c
                }
            }
            if let threshold = o.minScoreThreshold, maxScore < threshold { continue }
            if classID < 0 { continue }  // all scores NaN

            let base = i * o.numCoords
            let b = base + o.boxCoordOffset
            var yCenter: Float, xCenter: Float, h: Float, w: Float
            switch o.boxFormat {
            case .yxhw:
                yCenter = boxes[b]; xCenter = boxes[b + 1]; h = boxes[b + 2]; w = boxes[b + 3]
            case .xywh:
                xCenter = boxes[b]; yCenter = boxes[b + 1]; w = boxes[b + 2]; h = boxes[b + 3]
            case .xyxy:
                xCenter = (-boxes[b] + boxes[b + 2]) / 2
                yCenter = (-boxes[b + 1] + boxes[b + 3]) / 2
                w = boxes[b + 2] + boxes[b]
                h = boxes[b + 3] + boxes[b + 1]
            }
            let anchor = anchors[i]
            xCenter = xCenter / o.xScale * anchor.width + anchor.xCenter
            yCenter = yCenter / o.yScale * anchor.height + anchor.yCenter
            if o.applyExponentialOnBoxSize {
                h = expf(h / o.hScale) * anchor.height
                w = expf(w / o.wScale) * anchor.width
            } else {
                h = h / o.hScale * anchor.height
                w = w / o.wScale * anchor.width
            }
            let ymin = yCenter - h / 2
            let xmin = xCenter - w / 2
            let ymax = yCenter + h / 2
            let xmax = xCenter + w / 2

            let width = xmax - xmin
            let height = ymax - ymin
            if width < 0 || height < 0 || width.isNaN || height.isNaN { continue }

            var keypoints: [Detection.Keypoint] = []
            keypoints.reserveCapacity(o.numKeypoints)
            for k in 0..<o.numKeypoints {
                let offset = base + o.keypointCoordOffset + k * 2
                let kx: Float, ky: Float
                switch o.boxFormat {
                case .yxhw: ky = boxes[offset]; kx = boxes[offset + 1]
                case .xywh, .xyxy: kx = boxes[offset]; ky = boxes[offset + 1]
                }
                let x = kx / o.xScale * anchor.width + anchor.xCenter
                let y = ky / o.yScale * anchor.height + anchor.yCenter
                keypoints.append(Detection.Keypoint(x: x, y: o.flipVertically ? 1 - y : y))
            }
            detections.append(
                Detection(
                    score: maxScore, labelID: classID, xmin: xmin,
                    ymin: o.flipVertically ? 1 - ymax : ymin, width: width, height: height,
                    keypoints: keypoints))
        }
        return detections
    }

    /// Decodes from arrays (convenience for callers holding copies of the output tensors).
    package func decode(boxes: [Float], scores: [Float]) throws -> [Detection] {
        try boxes.withUnsafeBufferPointer { b in
            try scores.withUnsafeBufferPointer { s in try decode(boxes: b, scores: s) }
        }
    }
}
