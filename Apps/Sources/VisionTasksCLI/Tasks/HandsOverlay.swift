import Foundation
import VisionTasks

/// How hands are drawn (`--annotate`) and summarised (`--output-format text`).
enum HandsOverlay {
    static let connections = LandmarkConnections.hand

    /// A skeleton per hand, labelled with its handedness (and gesture).
    static func hands(
        _ landmarks: [[NormalizedLandmark]], labels: [String], imageWidth: Int, imageHeight: Int
    ) -> Overlay {
        var overlay = Overlay()
        for (i, hand) in landmarks.enumerated() {
            overlay.append(
                Overlay.skeleton(
                    normalizedPoints: hand.map { (x: $0.x, y: $0.y) }, connections: connections,
                    imageWidth: imageWidth, imageHeight: imageHeight, label: i < labels.count ? labels[i] : nil))
        }
        return overlay
    }

    /// "Left 0.97" for a handedness list.
    static func describe(_ categories: [ResultCategory]) -> String {
        guard let first = categories.first else { return "?" }
        return "\(first.categoryName ?? "?") \(String(format: "%.2f", first.score))"
    }

    /// "no hand", "1 hand: Left 0.97", "2 hands: Left 0.97, Right 0.88".
    static func summary(_ labels: [String]) -> String {
        switch labels.count {
        case 0: return "no hand"
        case 1: return "1 hand: \(labels[0])"
        default: return "\(labels.count) hands: " + labels.joined(separator: ", ")
        }
    }
}
