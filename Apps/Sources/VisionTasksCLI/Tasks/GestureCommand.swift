import ArgumentParser
import Foundation
@_spi(Apps) import VisionTasks

/// `vision-tasks gesture [recognize]`: hand gestures (with landmarks and handedness) in images
/// and videos; the default subcommand of `GestureCommandGroup`.
struct GestureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recognize",
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

    /// One warning for each allow or deny list (`--allow`, `--deny`, `--custom-allow`,
    /// `--custom-deny`) that names a class its classifier does not have: MediaPipe ignores such
    /// names silently, so a typo (`thumb_up`) would filter nothing without a word. `names` are
    /// the classifiers' names read from the model (nil when it could not be read: then the
    /// canned lists are checked against the canned gesture names, and creating the task reports
    /// what is wrong with the model).
    func classifierListWarnings(names: GestureClassifierNames?) -> [String] {
        func list(_ value: String?) -> [String] {
            (Self.classifier(threshold: nil, allow: value, deny: nil)?.categoryAllowlist ?? []).filter { !$0.isEmpty }
        }
        var warnings: [String] = []
        let canned = names?.canned ?? CannedGesture.allCases.map(\.rawValue)
        for (flag, value) in [("--allow", allow), ("--deny", deny)] {
            let unknown = GestureClassifierNames.unknown(list(value), known: canned)
            if !unknown.isEmpty {
                warnings.append(
                    "warning: \(flag): no canned gesture is named \(unknown.joined(separator: ", ")) (names are case-sensitive: "
                        + canned.joined(separator: ", ") + "); such names match nothing")
            }
        }
        guard let names else { return warnings }
        for (flag, value) in [("--custom-allow", customAllow), ("--custom-deny", customDeny)] where value != nil {
            guard let custom = names.custom else {
                warnings.append("warning: \(flag): the model has no custom gesture classifier; the list has no effect")
                continue
            }
            let unknown = GestureClassifierNames.unknown(list(value), known: custom)
            if !unknown.isEmpty, !custom.isEmpty {
                warnings.append(
                    "warning: \(flag): the custom classifier has no gesture named \(unknown.joined(separator: ", ")) "
                        + "(names are case-sensitive: " + custom.joined(separator: ", ") + "); such names match nothing")
            }
        }
        return warnings
    }

    func run() throws {
        let modelPath = try hands.model.modelPath(default: .gestureRecognizerBundle)
        if allow != nil || deny != nil || customAllow != nil || customDeny != nil {
            let baseOptions = BaseOptions()
            baseOptions.modelAssetPath = modelPath
            for warning in classifierListWarnings(names: try? GestureClassifierNames(baseOptions: baseOptions)) {
                MediaDriver.report(warning)
            }
        }
        var processor = TaskFrameProcessor.gestures(
            modelPath: modelPath, settings: hands,
            canned: Self.classifier(threshold: scoreThreshold, allow: allow, deny: deny),
            custom: Self.classifier(threshold: customScoreThreshold, allow: customAllow, deny: customDeny))
        try processor.run(media: media)
    }
}
