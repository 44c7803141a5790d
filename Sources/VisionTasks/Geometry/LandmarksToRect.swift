import Foundation

/// The region for the next frame, computed from the current landmarks.
package enum LandmarksToRect {
    /// The 12 hand landmarks MediaPipe's HandLandmarksToRectCalculator uses (of 21): wrist,
    /// thumb CMC/MCP/IP, and the MCP and PIP joints of the four fingers.
    package static let handPartialIndices = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    /// The hand rect as HandLandmarksToRectCalculator computes it, before the
    /// `RectTransformation.handLandmarksToNextFrame` enlargement.
    ///
    /// Rotation: from the wrist to the mean of the middle finger MCP and the midpoint of the
    /// index and ring finger MCPs, turned to 90°. Size and centre: the bounds of the 12
    /// landmarks in the frame rotated by −rotation, in pixels.
    package static func hand(_ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int)
        -> NormalizedRect?
    {
        let all = landmarks
        let lms: [NormalizedLandmark] =
            all.count == 21 ? handPartialIndices.map { all[$0] } : all
        guard lms.count > 8 else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)

        // Partial indices: 0 wrist, 4 index MCP, 6 middle MCP, 8 ring MCP.
        let x0 = lms[0].x * w
        let y0 = lms[0].y * h
        var x1 = (lms[4].x + lms[8].x) / 2
        var y1 = (lms[4].y + lms[8].y) / 2
        x1 = (x1 + lms[6].x) / 2 * w
        y1 = (y1 + lms[6].y) / 2 * h
        let targetAngle = Float(Double.pi * 0.5)
        let rotation = Angle.rotation(from: x0, y0, to: x1, y1, targetAngle: targetAngle)
        let reverseAngle = Angle.normalizeRadians(-rotation)

        // MediaPipe starts the maxima at FLT_MIN (the smallest positive float), not −FLT_MAX.
        var maxX = Float.leastNormalMagnitude, maxY = Float.leastNormalMagnitude
        var minX = Float.greatestFiniteMagnitude, minY = Float.greatestFiniteMagnitude
        for lm in lms {
            maxX = max(maxX, lm.x)
            maxY = max(maxY, lm.y)
            minX = min(minX, lm.x)
            minY = min(minY, lm.y)
        }
        let centerX0 = (maxX + minX) / 2
        let centerY0 = (maxY + minY) / 2

        maxX = Float.leastNormalMagnitude
        maxY = Float.leastNormalMagnitude
        minX = Float.greatestFiniteMagnitude
        minY = Float.greatestFiniteMagnitude
        let cr = cosf(reverseAngle), sr = sinf(reverseAngle)
        for lm in lms {
            let ox = (lm.x - centerX0) * w
            let oy = (lm.y - centerY0) * h
            let px = ox * cr - oy * sr
            let py = ox * sr + oy * cr
            maxX = max(maxX, px)
            maxY = max(maxY, py)
            minX = min(minX, px)
            minY = min(minY, py)
        }
        let projectedCenterX = (maxX + minX) / 2
        let projectedCenterY = (maxY + minY) / 2
        let c = cosf(rotation), s = sinf(rotation)
        let centerX = projectedCenterX * c - projectedCenterY * s + w * centerX0
        let centerY = projectedCenterX * s + projectedCenterY * c + h * centerY0
        return NormalizedRect(
            xCenter: centerX / w, yCenter: centerY / h,
            width: (maxX - minX) / w, height: (maxY - minY) / h, rotation: rotation)
    }

    /// MediaPipe's LandmarksToDetectionCalculator: a detection whose keypoints are the
    /// landmarks and whose box bounds them (with its quirk of starting the maxima at FLT_MIN).
    package static func detection(_ landmarks: [NormalizedLandmark]) -> Detection {
        var xMin = Float.greatestFiniteMagnitude, yMin = Float.greatestFiniteMagnitude
        var xMax = Float.leastNormalMagnitude, yMax = Float.leastNormalMagnitude
        var keypoints: [Detection.Keypoint] = []
        keypoints.reserveCapacity(landmarks.count)
        for lm in landmarks {
            xMin = min(xMin, lm.x)
            xMax = max(xMax, lm.x)
            yMin = min(yMin, lm.y)
            yMax = max(yMax, lm.y)
            keypoints.append(Detection.Keypoint(x: lm.x, y: lm.y))
        }
        return Detection(
            score: 0, xmin: xMin, ymin: yMin, width: xMax - xMin, height: yMax - yMin,
            keypoints: keypoints)
    }

    /// The pose rect for the next frame (pose_landmarks_detector_graph.cc): the two auxiliary
    /// landmarks (hip midpoint, point above the head) as alignment points, then ×1.25 and
    /// squared. `auxiliaryLandmarks` are the 2 projected auxiliary landmarks (33 and 34 of
    /// the model's 39).
    package static func pose(
        auxiliaryLandmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int
    ) -> NormalizedRect? {
        let detection = detection(auxiliaryLandmarks)
        guard
            let rect = DetectionToRect.poseAlignment.rect(
                for: detection, imageWidth: imageWidth, imageHeight: imageHeight)
        else { return nil }
        return RectTransformation.poseAlignment.apply(
            to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
