#!/usr/bin/env python3
"""Times MediaPipe's Python Tasks API on a camera-like stream of JPEG frames: the whole trip
from JPEG bytes to result (decoding with OpenCV, as a Python camera pipeline would, then the
task call), for `vision-tasks-bench --sections live`. Usage:

  mediapipe_live.py TASK --model BUNDLE --mode video|image [--num-hands N] [--num-poses N]
                    [--first-frame] FRAME.jpg...

TASK is gesture, hands or pose. Every frame's bytes are read into memory first (not timed).
Then, per frame: decode (cv2.imdecode + BGR->RGB, wrapped as mp.Image) and the task call
(video mode: timestamps 33 ms apart; image mode: the palm/pose detector runs on every frame).
Prints one JSON object: {"decode_ms": [...], "task_ms": [...], "found", "version",
"created_to_result_ms", "first_result_epoch"}; with --first-frame only the first frame runs
(for the latency of a fresh process: `first_result_epoch` is the wall clock at its result, and
`created_to_result_ms` the time from creating the task to that result, decoding included).
Exits with status 3 when mediapipe or OpenCV is not installed.
"""
import argparse
import json
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task", choices=["gesture", "hands", "pose"])
    parser.add_argument("frames", nargs="+")
    parser.add_argument("--model", required=True)
    parser.add_argument("--mode", choices=["video", "image"], default="video")
    parser.add_argument("--num-hands", type=int, default=2)
    parser.add_argument("--num-poses", type=int, default=1)
    parser.add_argument("--first-frame", action="store_true")
    args = parser.parse_args()
    try:
        import cv2
        import numpy as np
        import mediapipe as mp
        from mediapipe.tasks.python import BaseOptions, vision
    except ImportError as error:
        print(f"mediapipe or OpenCV is not available: {error}", file=sys.stderr)
        return 3
    frames = []
    for path in args.frames[:1] if args.first_frame else args.frames:
        with open(path, "rb") as f:
            frames.append(np.frombuffer(f.read(), dtype=np.uint8))

    mode = vision.RunningMode.VIDEO if args.mode == "video" else vision.RunningMode.IMAGE
    created = time.perf_counter()
    base = BaseOptions(model_asset_path=args.model)
    if args.task == "gesture":
        task = vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=base, running_mode=mode, num_hands=args.num_hands))
        call = task.recognize_for_video if args.mode == "video" else task.recognize
    elif args.task == "hands":
        task = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=base, running_mode=mode, num_hands=args.num_hands))
        call = task.detect_for_video if args.mode == "video" else task.detect
    else:
        task = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=base, running_mode=mode, num_poses=args.num_poses))
        call = task.detect_for_video if args.mode == "video" else task.detect

    decode_ms, task_ms, found = [], [], 0
    created_to_result = None
    first_epoch = None
    for index, data in enumerate(frames):
        start = time.perf_counter()
        rgb = cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
        decoded = time.perf_counter()
        result = call(image, index * 33) if args.mode == "video" else call(image)
        done = time.perf_counter()
        if created_to_result is None:
            created_to_result = (done - created) * 1000.0
            first_epoch = time.time()
        decode_ms.append((decoded - start) * 1000.0)
        task_ms.append((done - decoded) * 1000.0)
        found += len(result.pose_landmarks) if args.task == "pose" else len(result.hand_landmarks)
    task.close()
    print(json.dumps({"decode_ms": decode_ms, "task_ms": task_ms, "found": found,
                      "version": getattr(mp, "__version__", None),
                      "created_to_result_ms": created_to_result, "first_result_epoch": first_epoch}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
