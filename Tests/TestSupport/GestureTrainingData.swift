import Foundation

/// A small gesture dataset folder in Model Maker's layout, made at test time from the shared
/// photos (links to them) and a clip made from one of them, for the gesture training tests of
/// the library and the command line. The labels are new names for canned gestures, so a
/// trained classifier must learn them.
public enum GestureTrainingData {
    /// Shared photos by label.
    public static let photos: [String: [String]] = [
        "none": ["hand_call_sign_none_01", "hand_ok_sign_none_01", "hand_four_fingers_left_01"],
        "approve": ["hand_thumb_up_02_samples", "hand_thumb_up_03_samples", "hand_thumb_up_left_01"],
        "reject": ["hand_thumb_down_right_02_selfie", "hand_thumb_down_03_across_body"],
    ]
    /// The clip in the `approve` folder: the thumbs-up still at six places and sizes, 0.2 s each
    /// (1.2 s at 30 fps).
    public static let clipName = "approve/moving.mp4"

    /// Google's gesture recognizer bundle the references were made with (its canned classifier
    /// has labels): the base the tests train on.
    public static func referenceBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
    }

    /// A fresh empty folder under the temporary directory.
    public static func temporaryFolder(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vision-tasks-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Makes the dataset folder in a new temporary folder and returns it.
    public static func makeFolder() throws -> URL {
        let testdata = try SharedTestData.testdata()
        let root = try temporaryFolder("gesture-dataset")
        for (label, names) in photos {
            let folder = root.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in names {
                try FileManager.default.createSymbolicLink(
                    at: folder.appendingPathComponent("\(name).jpg"),
                    withDestinationURL: testdata.appendingPathComponent("media/\(name).jpg"))
            }
        }
        let places = [(200, 200, 300), (440, 200, 300), (320, 240, 420), (200, 300, 260), (440, 300, 360), (320, 240, 480)]
        let shots = places.flatMap { place in
            Array(repeating: GestureClips.Shot(GestureClips.thumbUp, centerX: place.0, centerY: place.1, height: place.2), count: 6)
        }
        try GestureClips.write(shots, to: root.appendingPathComponent(clipName).path, testdata: testdata)
        return root
    }
}
