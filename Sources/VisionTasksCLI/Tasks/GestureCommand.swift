import ArgumentParser
import Foundation
import VisionTasks

/// `vision-tasks gesture`: hand gestures (with landmarks and handedness) in images and videos.
struct GestureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Recognise hand gestures (and find hand landmarks) in images and videos.",
        discussion: """
            Images run in image mode; videos in video mode (hands tracked from frame to frame, as \
            MediaPipe does). Results are JSON in the form of MediaPipe's reference files: per \
            hand, `handedness`, `gestures` (the recognised gesture: None, Closed_Fist, \
            Open_Palm, Pointing_Up, Thumb_Down, Thumb_Up, Victory, ILoveYou, or a custom \
            classifier's label), `landmarks` and `worldLandmarks`.

            The model defaults to gesture_recognizer.task in the model folder (installed on \
            first use; canned gestures). A bundle with a custom classifier, such as Model \
            Maker's output or operations.task from the model folder, runs canned and custom \
            classifiers together as MediaPipe does.

            Examples:
              vision-tasks gesture thumbs_up.jpg
              vision-tasks gesture --num-hands 2 clip.mp4 -o out.jsonl --annotate out.mp4
              vision-tasks gesture --model operations.task hand.jpg
              vision-tasks gesture --deny None --output-format text photos/
              ffmpeg -i cam.mp4 -f rawvideo -pix_fmt rgb24 - \\
                | vision-tasks gesture --raw 640x480:rgb24 -
            """)

    @OptionGroup var media: MediaOptions
    @OptionGroup var hands: HandsTaskOptions

    @Option(parsing: .unconditional, help: ArgumentHelp("Canned gestures scoring below this are dropped.", valueName: "score"))
    var scoreThreshold: Float?

    @Option(help: ArgumentHelp("Only these canned gestures (comma-separated names).", valueName: "names"))
    var allow: String?

    @Option(help: ArgumentHelp("Never these canned gestures (comma-separated names), e.g. None.", valueName: "names"))
    var deny: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Custom classifier gestures scoring below this are dropped (default: the model's own threshold).",
        valueName: "score"))
    var customScoreThreshold: Float?

    @Option(help: ArgumentHelp("Only these custom gestures (comma-separated names).", valueName: "names"))
    var customAllow: String?

    @Option(help: ArgumentHelp("Never these custom gestures (comma-separated names).", valueName: "names"))
    var customDeny: String?

    mutating func validate() throws {
        if media.masks != nil { throw ValidationError("--masks is for pose: gestures have no segmentation masks") }
        for (flag, value) in [("--score-threshold", scoreThreshold), ("--custom-score-threshold", customScoreThreshold)] {
            if let value, !value.isFinite { throw ValidationError("\(flag) must be a number, got \(value)") }
        }
        if allow != nil && deny != nil { throw ValidationError("--allow and --deny cannot be used together") }
        if customAllow != nil && customDeny != nil {
            throw ValidationError("--custom-allow and --custom-deny cannot be used together")
        }
    }

    /// Classifier options from the flags, nil when none is given (MediaPipe's defaults).
    static func classifier(threshold: Float?, allow: String?, deny: String?) -> ClassifierOptions? {
        guard threshold != nil || allow != nil || deny != nil else { return nil }
        func names(_ list: String?) -> [String]? {
            list.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        return ClassifierOptions(
            scoreThreshold: threshold ?? 0, categoryAllowlist: names(allow), categoryDenylist: names(deny))
    }

    /// Names in `--allow` or `--deny` that are not canned gestures: MediaPipe ignores them
    /// silently, so a typo (`thumb_up`) would filter nothing without a word.
    static func unknownCannedNames(_ list: String?) -> [String] {
        let known = Set(CannedGesture.allCases.map(\.rawValue))
        return (classifier(threshold: nil, allow: list, deny: nil)?.categoryAllowlist ?? []).filter { !known.contains($0) }
    }

    func run() throws {
        for (flag, list) in [("--allow", allow), ("--deny", deny)] {
            let unknown = Self.unknownCannedNames(list)
            if !unknown.isEmpty {
                MediaDriver.report(
                    "warning: \(flag): no canned gesture is named \(unknown.joined(separator: ", ")) (names are case-sensitive: "
                        + CannedGesture.allCases.map(\.rawValue).joined(separator: ", ") + "); such names match nothing")
            }
        }
        var processor = TaskFrameProcessor.gestures(
            modelPath: try hands.model.modelPath(default: .gestureRecognizerBundle), settings: hands,
            canned: Self.classifier(threshold: scoreThreshold, allow: allow, deny: deny),
            custom: Self.classifier(threshold: customScoreThreshold, allow: customAllow, deny: customDeny))
        try processor.run(media: media)
    }
}
