import Foundation

/// Maps landmarks from a crop back to the image, as MediaPipe's LandmarkLetterboxRemoval-,
/// LandmarkProjection- and WorldLandmarkProjectionCalculator do.
package enum LandmarkProjection {
    /// Removes letterbox padding: x' = (x − left)/(1 − left − right), y likewise,
    /// z' = z/(1 − left − right). Identity for zero padding.
    package static func removingLetterbox(
        _ landmarks: [NormalizedLandmark], _ padding: LetterboxPadding
    ) -> [NormalizedLandmark] {
        let leftAndRight = padding.left + padding.right
        let topAndBottom = padding.top + padding.bottom
        return landmarks.map { lm in
            var out = lm
            out.x = (lm.x - padding.left) / (1.0 - leftAndRight)
            out.y = (lm.y - padding.top) / (1.0 - topAndBottom)
            out.z = lm.z / (1.0 - leftAndRight)
            return out
        }
    }

    /// Projects landmarks normalised to a crop of `rect` into the image (the NORM_RECT form
    /// used by the hand and pose landmark graphs): rotate (x − ½, y − ½) by the rect's
    /// rotation, scale by its size, add its centre; z is scaled by the rect's width.
    /// visibility and presence are kept.
    package static func project(
        _ landmarks: [NormalizedLandmark], from rect: NormalizedRect, ignoreRotation: Bool = false
    ) -> [NormalizedLandmark] {
        let angle: Float = ignoreRotation ? 0 : rect.rotation
        let c = cosf(angle), s = sinf(angle)
        return landmarks.map { lm in
            let x = lm.x - 0.5
            let y = lm.y - 0.5
            var newX = c * x - s * y
            var newY = s * x + c * y
            newX = newX * rect.width + rect.xCenter
            newY = newY * rect.height + rect.yCenter
            var out = lm
            out.x = newX
            out.y = newY
            out.z = lm.z * rect.width
            return out
        }
    }

    /// Projects landmarks with an image-to-tensor matrix (the PROJECTION_MATRIX form): x and y
    /// through the matrix, z scaled by the length of the projected unit x segment.
    package static func project(
        _ landmarks: [NormalizedLandmark], by matrix: ProjectionMatrix
    ) -> [NormalizedLandmark] {
        let zScale = matrix.zScale
        return landmarks.map { lm in
            let p = matrix.projectXYZ(lm.x, lm.y, lm.z)
            var out = lm
            out.x = p.x
            out.y = p.y
            out.z = zScale * lm.z
            return out
        }
    }

    /// Rotates world landmarks (metres) by the rect's rotation about the z axis:
    /// x' = cos·x − sin·y, y' = sin·x + cos·y; z, visibility and presence unchanged.
    package static func rotateWorld(_ landmarks: [Landmark], by rect: NormalizedRect) -> [Landmark] {
        let cosa = cosf(rect.rotation), sina = sinf(rect.rotation)
        return landmarks.map { lm in
            var out = lm
            out.x = cosa * lm.x - sina * lm.y
            out.y = sina * lm.x + cosa * lm.y
            return out
        }
    }
}
