/// The landmark model's presence score of each detected hand or pose, carried beside a task's
/// result for the ML Kit and Vision façades (their confidences). Not part of MediaPipe's result,
/// so the result's equality, hashing and coding ignore it: two results with the same landmarks
/// are equal whatever their scores.
package struct PresenceScores: Sendable, Hashable {
    /// One score per hand or pose, in the result's order; empty for results built by hand.
    package var values: [Float] = []

    package init(_ values: [Float] = []) { self.values = values }

    /// The score of detection `index`, or nil when there is none.
    package subscript(index: Int) -> Float? { values.indices.contains(index) ? values[index] : nil }

    package static func == (_: PresenceScores, _: PresenceScores) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}
