import Foundation
import MediaIO
import TestSupport
import VisionTasks
import VisionTasksAppleVision
import XCTest

/// The evidence behind `chirality` (docs/apple-vision.md, "Chirality"), recomputed from
/// `media/SOURCES.md` (which hand each photo shows, judged by eye) and MediaPipe's reference
/// JSON, with the façade run on MediaPipe's exact pixels. Prints one row per photo whose side
/// SOURCES.md names.
final class ChiralityEvidenceTests: XCTestCase {
    /// A BlazePose wrist counts as lying on the hand when it is this close (pixels) to the
    /// hand model's wrist.
    static let wristRadius = 15.0

    /// One photo's row.
    struct Row {
        var named: NamedHandSide
        /// MediaPipe's handedness label ("Left"/"Right"), nil when it found no hand.
        var label: String?
        var chirality: VNChirality?
        /// Distances (pixels) from the hand's wrist to BlazePose's left and right wrists, and
        /// their visibility, from the reference; nil without a hand or a pose.
        var leftWrist: (distance: Double, visibility: Double)?
        var rightWrist: (distance: Double, visibility: Double)?
        /// The side of the Vision body request's wrist nearest to the hand (façade output).
        var facadeNearest: NamedHandSide.Side?

        /// BlazePose's wrist nearest to the hand's, when within `wristRadius`.
        var blazePoseNearest: NamedHandSide.Side? {
            guard let l = leftWrist, let r = rightWrist else { return nil }
            let (side, distance) = l.distance <= r.distance ? (NamedHandSide.Side.left, l.distance) : (.right, r.distance)
            return distance <= ChiralityEvidenceTests.wristRadius ? side : nil
        }
    }

    static func side(_ chirality: VNChirality?) -> NamedHandSide.Side? {
        switch chirality {
        case .left: return .left
        case .right: return .right
        default: return nil
        }
    }

    /// Chirality is MediaPipe's handedness label read as the person's own side. Asserted: it
    /// equals MediaPipe's label on every one of these photos; read that way the label agrees
    /// with the side SOURCES.md names more often than read the other way (the older "mirrored
    /// selfie" convention); the one photo where it does not is the one docs/apple-vision.md
    /// names; and the façade's body request finds the same nearest wrist as MediaPipe's pose
    /// reference, so the body joints' sides carry the same evidence.
    func testChiralityAgainstTheSidesSourcesNames() throws {
        let named = try NamedHandSide.all()
        let images = Dictionary(uniqueKeysWithValues: try ReferenceMedia.images().map { ($0.name, $0) })
        let hands = try VisionFixture.handRequest()
        let bodies = try VisionFixture.bodyRequest()
        var rows: [Row] = []
        for entry in named {
            guard let item = images[entry.name] else { continue }   // a video: no image reference
            let reference = try ReferenceMedia.reference(item, as: VisionReference.self)
            let pixels = try MPImage(contentsOf: item.pixelsFile).pixelBuffer
            try VNImageRequestHandler(cvPixelBuffer: pixels).perform([hands, bodies])
            let observations = try XCTUnwrap(hands.results, entry.name)
            XCTAssertEqual(observations.count, reference.gesture.landmarks.count, "\(entry.name): hands")
            XCTAssertLessThanOrEqual(reference.gesture.landmarks.count, 1, "\(entry.name): a photo of one hand")
            var row = Row(named: entry)
            if let hand = reference.gesture.landmarks.first, let observation = observations.first {
                row.label = reference.gesture.handedness.first?.first?.categoryName
                row.chirality = observation.chirality
                let w = Double(reference.width), h = Double(reference.height)
                let wrist = (x: hand[0].x * w, y: hand[0].y * h)
                func distance(_ p: VisionReference.Point) -> Double { hypot(p.x * w - wrist.x, p.y * h - wrist.y) }
                if let pose = reference.pose.landmarks.first {
                    row.leftWrist = (distance(pose[15]), pose[15].visibility ?? 0)
                    row.rightWrist = (distance(pose[16]), pose[16].visibility ?? 0)
                }
                if let body = bodies.results?.first {
                    let l = try body.recognizedPoint(.leftWrist), r = try body.recognizedPoint(.rightWrist)
                    let dl = hypot(l.x * w - wrist.x, (1 - l.y) * h - wrist.y)
                    let dr = hypot(r.x * w - wrist.x, (1 - r.y) * h - wrist.y)
                    row.facadeNearest = dl <= dr ? .left : .right
                }
            }
            rows.append(row)
        }
        print(Self.table(rows))

        let withHand = rows.filter { $0.chirality != nil }
        for row in withHand {
            XCTAssertEqual(row.chirality, row.label == "Left" ? .left : .right, "\(row.named.name): chirality = MediaPipe's label")
            if let nearest = row.blazePoseNearest {
                XCTAssertEqual(row.facadeNearest, nearest, "\(row.named.name): the body request's nearest wrist")
            }
        }
        let asIs = withHand.filter { Self.side($0.chirality) == $0.named.side }
        let swapped = withHand.filter { Self.side($0.chirality) == $0.named.side.opposite }
        XCTAssertGreaterThanOrEqual(withHand.count, 6, "photos with a named side and a hand")
        XCTAssertGreaterThan(asIs.count, swapped.count, "the label read as the real side fits the named sides better")
        XCTAssertEqual(withHand.filter { Self.side($0.chirality) != $0.named.side }.map(\.named.name), ["hand_thumb_up_left_01"])
    }

    /// The printed table and its summary.
    static func table(_ rows: [Row]) -> String {
        func wrist(_ w: (distance: Double, visibility: Double)?) -> String {
            w.map { String(format: "%.1f px (vis %.2f)", $0.distance, $0.visibility) } ?? "-"
        }
        var lines = [
            "Chirality evidence (media/SOURCES.md, MediaPipe's reference, the façade on MediaPipe's pixels):",
            "photo | SOURCES.md | MediaPipe | chirality | BlazePose left wrist | right wrist | nearest within \(Int(wristRadius)) px",
        ]
        for row in rows {
            lines.append([
                row.named.name, row.named.words, row.label ?? "no hand", row.chirality.map { "\($0)" } ?? "-",
                wrist(row.leftWrist), wrist(row.rightWrist), row.blazePoseNearest?.rawValue ?? "-",
            ].joined(separator: " | "))
        }
        let withHand = rows.filter { $0.chirality != nil }
        let firm = withHand.filter(\.named.isFirm)
        func agree(_ rows: [Row], swapped: Bool = false) -> Int {
            rows.filter { side($0.chirality) == (swapped ? $0.named.side.opposite : $0.named.side) }.count
        }
        let nearest = withHand.filter { $0.blazePoseNearest != nil }
        lines.append(
            "\(rows.count) photos name a side (\(rows.filter(\.named.isFirm).count) \"subject's\", \(rows.filter { !$0.named.isFirm }.count) \"likely\"); "
                + "MediaPipe finds a hand on \(withHand.count) (none on \(rows.filter { $0.chirality == nil }.map(\.named.name)))")
        lines.append(
            "label read as the real side = named side: \(agree(withHand)) of \(withHand.count) (\"subject's\": \(agree(firm)) of \(firm.count)); "
                + "read swapped: \(agree(withHand, swapped: true)) of \(withHand.count)")
        lines.append(
            "BlazePose wrist within \(Int(wristRadius)) px of the hand's: \(nearest.count) photos; its side = named side on "
                + "\(nearest.filter { $0.blazePoseNearest == $0.named.side }.count), = MediaPipe's label on "
                + "\(nearest.filter { $0.blazePoseNearest == side($0.chirality) }.count); both wrists within \(Int(wristRadius)) px on "
                + "\(nearest.filter { max($0.leftWrist?.distance ?? .infinity, $0.rightWrist?.distance ?? .infinity) <= wristRadius }.map(\.named.name))")
        return lines.joined(separator: "\n")
    }
}
