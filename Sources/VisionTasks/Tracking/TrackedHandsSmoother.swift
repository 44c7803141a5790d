/// One `LandmarksSmoother` pair (image and world landmarks) per tracked hand identifier, for
/// `HandLandmarkSmoothing`. A hand absent from a frame loses its filters, so a hand that is
/// found again starts afresh (it also gets a new identifier).
struct TrackedHandsSmoother {
    private let settings: HandLandmarkSmoothing
    private var filters: [Int64: (image: LandmarksSmoother, world: LandmarksSmoother)] = [:]

    init(settings: HandLandmarkSmoothing) throws {
        try settings.validate()
        self.settings = settings
    }

    mutating func reset() { filters = [:] }

    /// Smooths each hand that has an identifier; hands without one (image mode) pass through.
    mutating func apply(
        _ hands: [HandLandmarkerGraph.Hand], imageWidth: Int, imageHeight: Int, timestampInMilliseconds: Int
    ) -> [HandLandmarkerGraph.Hand] {
        let present = Set(hands.compactMap(\.trackingID))
        filters = filters.filter { present.contains($0.key) }
        let microseconds = Int64(timestampInMilliseconds) &* 1000
        return hands.map { hand in
            guard let id = hand.trackingID else { return hand }
            var pair: (image: LandmarksSmoother, world: LandmarksSmoother)
            if let existing = filters[id] {
                pair = existing
            } else {
                // The filters' parameters were checked in init, so these cannot fail.
                guard let image = try? LandmarksSmoother(filter: settings.landmarksFilter),
                    let world = try? LandmarksSmoother(filter: settings.worldLandmarksFilter)
                else { return hand }
                pair = (image, world)
            }
            var out = hand
            out.landmarks = pair.image.smooth(
                hand.landmarks, imageWidth: imageWidth, imageHeight: imageHeight,
                scaleRegion: hand.nextFrameRegion, timestampMicroseconds: microseconds)
            out.worldLandmarks = pair.world.smooth(hand.worldLandmarks, timestampMicroseconds: microseconds)
            filters[id] = pair
            return out
        }
    }
}
