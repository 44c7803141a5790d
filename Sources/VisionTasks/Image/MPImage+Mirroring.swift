extension MPImage {
    /// The same upright picture in a form the tasks accept: `self` for the four unmirrored
    /// orientations; for the mirrored ones a new `.up` image holding the upright pixels
    /// (mirror included), so that results come back in the mirrored upright image's
    /// coordinates. For the ML Kit and Vision façades, whose APIs take mirrored orientations.
    package func mirroringApplied() -> MPImage {
        guard orientation.isMirrored else { return self }
        let upright = pixelBuffer.convertedToRGB8().reoriented(orientation.exifOrientation)
        return MPImage(pixelBuffer: upright, orientation: .up)
    }
}
