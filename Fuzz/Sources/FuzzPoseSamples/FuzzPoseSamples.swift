import Foundation
import FuzzSupport
@testable import VisionTasks

/// One input: the bytes of an ML Kit pose samples CSV. Read with `PoseSample.samples(csv:)`
/// (bounded: 200 samples); what loads must write back to the same samples (coordinates exact;
/// names and classes with the characters the CSV cannot hold replaced, as `csvLine` documents),
/// then goes through a classifier that votes with fewer neighbours (so that small inputs reach it),
/// each sample classified as it is and mirrored, and a tracker fed the samples as one stream of
/// results (normalised to a 1000x1000 frame, identifiers from the classes).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPoseSamples(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    var limits = PoseSample.CSVLimits()
    limits.maximumSamples = 200
    guard let samples = try? PoseSample.samples(csv: Data(bytes: data, count: size), limits: limits) else { return 0 }
    let written = PoseSample.csv(samples)
    let expected = samples.map { sample in
        var copy = sample
        copy.name = PoseSample.csvField(sample.name)
        copy.className = PoseSample.csvField(sample.className)
        return copy
    }
    check((try? PoseSample.samples(csv: Data(written.utf8), limits: limits)) == expected, "the CSV written does not read back")
    var options = PoseClassifierOptions()
    options.maxDistanceTopK = 5
    options.meanDistanceTopK = 3
    guard let classifier = try? PoseClassifier(samples: samples, options: options) else { return 0 }
    for sample in samples {
        let classification = classifier.classify(sample.landmarks)
        check(classification.confidences.values.reduce(0, +) == Float(classifier.confidenceRange),
              "a sample's classification does not add up to the vote")
        _ = classifier.classify(sample.landmarks.map { SIMD3(-$0.x, $0.y, $0.z) })
    }
    var trackerOptions = PoseClassificationTrackerOptions()
    trackerOptions.repetitions.enterThreshold = 2
    trackerOptions.repetitions.exitThreshold = 1
    guard let tracker = try? PoseClassificationTracker(classifier: classifier, options: trackerOptions) else { return 0 }
    let classes = classifier.classNames
    for (index, sample) in samples.enumerated() {
        let landmarks = sample.landmarks.map { NormalizedLandmark(x: $0.x / 1000, y: $0.y / 1000, z: $0.z / 1000) }
        let identifier = (classes.firstIndex(of: sample.className) ?? 0) + 1
        let result = PoseLandmarkerResult(
            landmarks: [landmarks], worldLandmarks: [[]], timestampInMilliseconds: index * 33, poseIdentifiers: [identifier])
        check(tracker.process(result, imageWidth: 1000, imageHeight: 1000).count == 1, "one pose in, one classification out")
    }
    return 0
}

/// Stops the fuzzer when a promise of the samples code is broken: a finding like a crash.
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("fuzz check failed: \(message())\n".utf8))
    abort()
}

@_cdecl("FuzzPoseSamples_main")
public func fuzzPoseSamplesMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    vt_fuzz_main(argc, argv)
}
