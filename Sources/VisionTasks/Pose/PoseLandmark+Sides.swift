extension PoseLandmark {
    /// The same landmark on the other side of the body (`leftEye` ↔ `rightEye`, ...; the nose
    /// is its own twin). What a left-right mirror image swaps: the ML Kit and Vision façades
    /// use it to keep "left" the person's real side when given a mirrored orientation.
    package var oppositeSide: PoseLandmark {
        switch rawValue {
        case 0: return self
        case 1...3: return PoseLandmark(rawValue: rawValue + 3) ?? self
        case 4...6: return PoseLandmark(rawValue: rawValue - 3) ?? self
        default: return PoseLandmark(rawValue: rawValue % 2 == 1 ? rawValue + 1 : rawValue - 1) ?? self
        }
    }
}
