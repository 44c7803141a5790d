#!/usr/bin/env python3
"""Times Google MediaPipe's Python Tasks API (CPU) on images and video frames.

Used by `vision-tasks-bench` to put MediaPipe's time beside ours on the same files in the same
run. Usage:

  mediapipe_tasks.py pose --model pose_landmarker_full.task [--num-poses N] [--masks]
                     [--runs R] [--warmup W] FILE...

Images run in image mode, R timed calls each after W untimed ones. Videos (decoded with OpenCV,
as the references were; decoding not timed) run in video mode, every frame once, timed per call. Prints one
JSON object per file on stdout:
  {"task", "file", "mode", "frames", "median_ms", "mean_ms", "peak_rss_mb", "poses"}
where peak_rss_mb is this Python process's peak resident memory so far (Python, OpenCV and
MediaPipe included) and poses the number found on the last call (image) or in total (video).
Exits with status 3 when mediapipe is not installed.
"""
import argparse
import json
import os
import resource
import statistics
import sys
import time

VIDEO_EXTENSIONS = (".mp4", ".avi", ".mov", ".webm", ".mkv", ".gif", ".m4v")


def peak_rss_mb():
    # ru_maxrss is in KiB on Linux, bytes on macOS.
    value = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return value / (1024 * 1024) if sys.platform == "darwin" else value / 1024


def pose_landmarker(vision, base_options, args, mode):
    return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
        base_options=base_options(model_asset_path=args.model), running_mode=mode,
        num_poses=args.num_poses, output_segmentation_masks=args.masks))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task", choices=["pose"])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--model", required=True, help="the task's .task bundle")
    parser.add_argument("--num-poses", type=int, default=1)
    parser.add_argument("--masks", action="store_true", help="output segmentation masks")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    try:
        import cv2
        import mediapipe as mp
        from mediapipe.tasks.python import BaseOptions, vision
    except ImportError as error:
        print(f"mediapipe is not available: {error}", file=sys.stderr)
        return 3

    for path in args.files:
        times = []
        if path.lower().endswith(VIDEO_EXTENSIONS):
            capture = cv2.VideoCapture(path)
            fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
            landmarker = pose_landmarker(vision, BaseOptions, args, vision.RunningMode.VIDEO)
            poses = 0
            index = 0
            while True:
                ok, bgr = capture.read()
                if not ok:
                    break
                image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
                timestamp = int(round(index * 1000.0 / fps))
                start = time.perf_counter()
                result = landmarker.detect_for_video(image, timestamp)
                times.append((time.perf_counter() - start) * 1000.0)
                poses += len(result.pose_landmarks)
                index += 1
            mode = "video"
        else:
            image = mp.Image.create_from_file(path)
            landmarker = pose_landmarker(vision, BaseOptions, args, vision.RunningMode.IMAGE)
            for _ in range(args.warmup):
                landmarker.detect(image)
            for _ in range(args.runs):
                start = time.perf_counter()
                result = landmarker.detect(image)
                times.append((time.perf_counter() - start) * 1000.0)
            poses = len(result.pose_landmarks)
            mode = "image"
        landmarker.close()
        print(json.dumps({"task": args.task, "file": os.path.abspath(path), "mode": mode, "frames": len(times),
                          "median_ms": statistics.median(times) if times else None,
                          "mean_ms": statistics.fmean(times) if times else None,
                          "peak_rss_mb": peak_rss_mb(), "poses": poses}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
