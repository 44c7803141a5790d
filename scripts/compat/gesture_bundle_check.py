#!/usr/bin/env python3
"""Loads a gesture recognizer bundle trained by VisionTasks in MediaPipe and in LiteRT.

Used by `MediaPipeBundleCompatibilityTests` to check that MediaPipe's own code accepts the
bundles `CustomGestureClassifier.exportModel` writes and gives the same results as VisionTasks.
Usage:

  gesture_bundle_check.py BUNDLE REQUESTS.json

REQUESTS.json: {"images": [PATH, ...], "embeddings": [[128 floats], ...]}. The images go
through MediaPipe's GestureRecognizer (image mode, one hand, MediaPipe's defaults) on the
bundle; the embeddings through LiteRT's interpreter on the bundle's
custom_gesture_classifier.tflite. Prints one JSON object on stdout:

  {"mediapipe": VERSION, "litert": VERSION,
   "images": [{"file", "gestures": [[{"categoryName", "score"}], ...], "handedness": (the same form),
               "landmarks": [[[x, y, z] x 21], ...], "worldLandmarks": (the same form)}, ...],
   "scores": [[float, ...], ...], "labels": [str, ...]}

Exits with status 3 when mediapipe or ai-edge-litert is not installed.
"""
import io
import json
import sys
import zipfile


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    bundle_path, requests_path = sys.argv[1], sys.argv[2]
    try:
        import mediapipe as mp
        import numpy as np
        from ai_edge_litert.interpreter import Interpreter
        from mediapipe.tasks.python import BaseOptions, vision
    except ImportError as error:
        print(f"missing Python package: {error}", file=sys.stderr)
        return 3
    from importlib.metadata import version

    with open(requests_path) as f:
        requests = json.load(f)

    options = vision.GestureRecognizerOptions(
        base_options=BaseOptions(model_asset_path=bundle_path), num_hands=1)
    images = []
    with vision.GestureRecognizer.create_from_options(options) as recognizer:
        for path in requests["images"]:
            result = recognizer.recognize(mp.Image.create_from_file(path))
            images.append({
                "file": path,
                "gestures": [[{"categoryName": c.category_name, "score": float(c.score)} for c in hand]
                             for hand in result.gestures],
                "handedness": [[{"categoryName": c.category_name, "score": float(c.score)} for c in hand]
                               for hand in result.handedness],
                "landmarks": [[[p.x, p.y, p.z] for p in hand] for hand in result.hand_landmarks],
                "worldLandmarks": [[[p.x, p.y, p.z] for p in hand] for hand in result.hand_world_landmarks],
            })

    with open(bundle_path, "rb") as f:
        outer = zipfile.ZipFile(io.BytesIO(f.read()))
    inner = zipfile.ZipFile(io.BytesIO(outer.read("hand_gesture_recognizer.task")))
    classifier = inner.read("custom_gesture_classifier.tflite")
    labels = zipfile.ZipFile(io.BytesIO(classifier)).read("labels.txt").decode("utf-8").split("\n")
    interpreter = Interpreter(model_content=classifier)
    interpreter.allocate_tensors()
    input_index = interpreter.get_input_details()[0]["index"]
    output_index = interpreter.get_output_details()[0]["index"]
    scores = []
    for embedding in requests["embeddings"]:
        interpreter.set_tensor(input_index, np.array([embedding], dtype=np.float32))
        interpreter.invoke()
        scores.append([float(v) for v in interpreter.get_tensor(output_index)[0]])

    json.dump({
        "mediapipe": version("mediapipe"), "litert": version("ai-edge-litert"),
        "images": images, "scores": scores, "labels": labels,
    }, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
