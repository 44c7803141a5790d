import Foundation

/// An SSD anchor: a normalised centre and size that a detector's box regressions are
/// relative to (MediaPipe's `Anchor`).
package struct Anchor: Sendable, Hashable {
    package var xCenter: Float
    package var yCenter: Float
    package var width: Float
    package var height: Float

    package init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
    }
}

/// The options of MediaPipe's SsdAnchorsCalculator (the non-multiscale generator).
///
/// Layers with equal consecutive strides share one feature map: each location of that map
/// gets, per layer, one anchor per aspect ratio plus (when `interpolatedScaleAspectRatio`
/// > 0) one anchor of scale √(scale·nextScale). With `fixedAnchorSize` every anchor is 1×1.
package struct SsdAnchorOptions: Sendable, Hashable {
    package var inputSizeWidth: Int
    package var inputSizeHeight: Int
    package var minScale: Float
    package var maxScale: Float
    package var anchorOffsetX: Float = 0.5
    package var anchorOffsetY: Float = 0.5
    package var numLayers: Int
    /// Explicit feature map sizes per layer; when empty they are ceil(input / stride).
    package var featureMapWidth: [Int] = []
    package var featureMapHeight: [Int] = []
    package var strides: [Int]
    package var aspectRatios: [Float]
    package var reduceBoxesInLowestLayer = false
    package var interpolatedScaleAspectRatio: Float = 1
    package var fixedAnchorSize = false

    package init(
        inputSizeWidth: Int, inputSizeHeight: Int, minScale: Float, maxScale: Float,
        anchorOffsetX: Float = 0.5, anchorOffsetY: Float = 0.5, numLayers: Int,
        featureMapWidth: [Int] = [], featureMapHeight: [Int] = [], strides: [Int],
        aspectRatios: [Float], reduceBoxesInLowestLayer: Bool = false,
        interpolatedScaleAspectRatio: Float = 1, fixedAnchorSize: Bool = false
    ) {
        self.inputSizeWidth = inputSizeWidth
        self.inputSizeHeight = inputSizeHeight
        self.minScale = minScale
        self.maxScale = maxScale
        self.anchorOffsetX = anchorOffsetX
        self.anchorOffsetY = anchorOffsetY
        self.numLayers = numLayers
        self.featureMapWidth = featureMapWidth
        self.featureMapHeight = featureMapHeight
        self.strides = strides
        self.aspectRatios = aspectRatios
        self.reduceBoxesInLowestLayer = reduceBoxesInLowestLayer
        self.interpolatedScaleAspectRatio = interpolatedScaleAspectRatio
        self.fixedAnchorSize = fixedAnchorSize
    }

    /// The palm detector's anchors (hand_detector_graph.cc): 192×192 input, 4 layers with
    /// strides 8, 16, 16, 16, fixed size: 2016 anchors.
    package static let palmDetection = SsdAnchorOptions(
        inputSizeWidth: 192, inputSizeHeight: 192, minScale: 0.1484375, maxScale: 0.75,
        numLayers: 4, strides: [8, 16, 16, 16], aspectRatios: [1], fixedAnchorSize: true)

    /// The pose detector's anchors (pose_detector_graph.cc): 224×224 input, 5 layers with
    /// strides 8, 16, 32, 32, 32, fixed size: 2254 anchors.
    package static let poseDetection = SsdAnchorOptions(
        inputSizeWidth: 224, inputSizeHeight: 224, minScale: 0.1484375, maxScale: 0.75,
        numLayers: 5, strides: [8, 16, 32, 32, 32], aspectRatios: [1], fixedAnchorSize: true)

    /// Generates the anchors in MediaPipe's order: layer groups, then rows, columns, and the
    /// anchors of one location.
    package func generateAnchors() throws -> [Anchor] {
        let useFeatureMaps = !featureMapHeight.isEmpty
        // MediaPipe groups layers by stride even when feature map sizes are given (without
        // strides its loop would not advance), so strides are required here.
        guard strides.count == numLayers else {
            throw TasksError.invalidArgument(
                "SSD anchors: \(numLayers) layers need \(numLayers) strides, got \(strides.count).")
        }
        if useFeatureMaps {
            guard featureMapHeight.count == numLayers, featureMapWidth.count == numLayers else {
                throw TasksError.invalidArgument(
                    "SSD anchors: \(numLayers) layers need \(numLayers) feature map sizes, got \(featureMapHeight.count) heights and \(featureMapWidth.count) widths.")
            }
        }
        guard numLayers > 0, inputSizeWidth > 0, inputSizeHeight > 0,
            strides.allSatisfy({ $0 > 0 }), featureMapHeight.allSatisfy({ $0 > 0 }),
            featureMapWidth.allSatisfy({ $0 > 0 })
        else {
            throw TasksError.invalidArgument(
                "SSD anchors: layer count, input size, strides and feature map sizes must be positive.")
        }

        var anchors: [Anchor] = []
        var layerID = 0
        while layerID < numLayers {
            var anchorHeights: [Float] = []
            var anchorWidths: [Float] = []
            var ratios: [Float] = []
            var scales: [Float] = []

            var last = layerID
            while last < strides.count, strides[last] == strides[layerID] {
                let scale = Self.scale(minScale, maxScale, last, strides.count)
                if last == 0 && reduceBoxesInLowestLayer {
                    ratios += [1.0, 2.0, 0.5]
                    scales += [0.1, scale, scale]
                } else {
                    for ratio in aspectRatios {
                        ratios.append(ratio)
                        scales.append(scale)
                    }
                    if interpolatedScaleAspectRatio > 0 {
                        let next: Float =
                            last == strides.count - 1
                            ? 1.0 : Self.scale(minScale, maxScale, last + 1, strides.count)
                        scales.append(sqrtf(scale * next))
                        ratios.append(interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            }
            for i in ratios.indices {
                let root = sqrtf(ratios[i])
                anchorHeights.append(scales[i] / root)
                anchorWidths.append(scales[i] * root)
            }

            let mapHeight: Int, mapWidth: Int
            if useFeatureMaps {
                mapHeight = featureMapHeight[layerID]
                mapWidth = featureMapWidth[layerID]
            } else {
                let stride = Float(strides[layerID])
                mapHeight = Int(ceilf(Float(inputSizeHeight) / stride))
                mapWidth = Int(ceilf(Float(inputSizeWidth) / stride))
            }
            for y in 0..<mapHeight {
                for x in 0..<mapWidth {
                    for a in anchorHeights.indices {
                        let xCenter = (Float(x) + anchorOffsetX) * 1.0 / Float(mapWidth)
                        let yCenter = (Float(y) + anchorOffsetY) * 1.0 / Float(mapHeight)
                        anchors.append(
                            Anchor(
                                xCenter: xCenter, yCenter: yCenter,
                                width: fixedAnchorSize ? 1 : anchorWidths[a],
                                height: fixedAnchorSize ? 1 : anchorHeights[a]))
                    }
                }
            }
            layerID = last
        }
        return anchors
    }

    /// MediaPipe's `CalculateScale`: the mean of min and max for one stride, else linear
    /// interpolation (evaluated in double, as the C++ expression promotes).
    package static func scale(_ minScale: Float, _ maxScale: Float, _ index: Int, _ count: Int) -> Float {
        if count == 1 { return (minScale + maxScale) * 0.5 }
        return Float(
            Double(minScale)
                + Double(maxScale - minScale) * 1.0 * Double(index) / Double(Float(count) - 1.0))
    }
}
