#!/usr/bin/env python3
"""Times Google MediaPipe's Python Tasks API (CPU) on images and video frames.

Used by `vision-tasks-bench` to put MediaPipe's time beside ours on the same files in the same
run, for the gesture recognizer, the hand landmarker and the pose landmarker. Usage:

  mediapipe_tasks.py gesture --model gesture_recognizer.task [--num-hands N] [--runs R] [--warmup W] FILE...
  mediapipe_tasks.py hands   --model hand_landmarker.task    [--num-hands N] [--runs R] [--warmup W] FILE...
  mediapipe_tasks.py pose    --model pose_landmarker_full.task [--num-poses N] [--masks] [--runs R] [--warmup W] FILE...

Images run in image mode: R timed calls each after W untimed ones. Videos (decoded with OpenCV
frame by frame, as the references were, and converted to RGB) run in video mode: every frame
once, each call timed, with timestamps round(frame x 1000 / fps). Only the task call is timed.
Prints one JSON object per file on stdout:
  {"task", "file", "mode", "frames", "times_ms", "median_ms", "mean_ms", "cpu_ms", "wall_ms",
   "peak_rss_mb", "version", "hands" | "poses"}
where `frames` is the number of timed calls, `times_ms` their times, `cpu_ms` / `wall_ms` the
process's CPU time (all threads) and the wall time summed over the timed calls (their ratio is
the number of cores MediaPipe kept busy), `peak_rss_mb` this Python process's peak resident
memory so far (Python, OpenCV and MediaPipe included; files are processed in the order given)
and `hands` / `poses` the number found on the last call (image) or in total (video).
Exits with status 3 when mediapipe (or OpenCV, for videos) is not installed.
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


class Task:
    """One MediaPipe task: how to create it for a running mode and call it, and what to count."""

    def __init__(self, vision, base_options, args):
        self.vision, self.base_options, self.args = vision, base_options, args

    def create(self, mode):
        v, a = self.vision, self.args
        base = self.base_options(model_asset_path=a.model)
        if a.task == "gesture":
            return v.GestureRecognizer.create_from_options(v.GestureRecognizerOptions(
                base_options=base, running_mode=mode, num_hands=a.num_hands))
        if a.task == "hands":
            return v.HandLandmarker.create_from_options(v.HandLandmarkerOptions(
                base_options=base, running_mode=mode, num_hands=a.num_hands))
        return v.PoseLandmarker.create_from_options(v.PoseLandmarkerOptions(
            base_options=base, running_mode=mode, num_poses=a.num_poses,
            output_segmentation_masks=a.masks))

    def image(self, task, image):
        return task.recognize(image) if self.args.task == "gesture" else task.detect(image)

    def video_frame(self, task, image, timestamp):
        if self.args.task == "gesture":
            return task.recognize_for_video(image, timestamp)
        return task.detect_for_video(image, timestamp)

    @property
    def count_key(self):
        return "poses" if self.args.task == "pose" else "hands"

    def count(self, result):
        if self.args.task == "pose":
            return len(result.pose_landmarks)
        return len(result.hand_landmarks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("task", choices=["gesture", "hands", "pose"])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--model", required=True, help="the task's .task bundle")
    parser.add_argument("--num-hands", type=int, default=1)
    parser.add_argument("--num-poses", type=int, default=1)
    parser.add_argument("--masks", action="store_true", help="pose: output segmentation masks")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    try:
        import mediapipe as mp
        from mediapipe.tasks.python import BaseOptions, vision
    except ImportError as error:
        print(f"mediapipe is not available: {error}", file=sys.stderr)
        return 3
    task = Task(vision, BaseOptions, args)

    for path in args.files:
        times = []
        cpu = [0.0]

        def timed(call):
            # Wall time of one call, and the CPU time all of the process's threads spent in it.
            cpu_start, start = time.process_time(), time.perf_counter()
            result = call()
            times.append((time.perf_counter() - start) * 1000.0)
            cpu[0] += (time.process_time() - cpu_start) * 1000.0
            return result

        if path.lower().endswith(VIDEO_EXTENSIONS):
            try:
                import cv2
            except ImportError as error:
                print(f"OpenCV is not available: {error}", file=sys.stderr)
                return 3
            capture = cv2.VideoCapture(path)
            fps = capture.get(cv2.CAP_PROP_FPS) or 30.0
            runner = task.create(vision.RunningMode.VIDEO)
            found = 0
            index = 0
            while True:
                # Decoded one frame at a time (not timed), so memory holds one frame.
                ok, bgr = capture.read()
                if not ok:
                    break
                image = mp.Image(image_format=mp.ImageFormat.SRGB, data=cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
                timestamp = int(round(index * 1000.0 / fps))
                index += 1
                result = timed(lambda: task.video_frame(runner, image, timestamp))
                found += task.count(result)
            mode = "video"
        else:
            image = mp.Image.create_from_file(path)
            runner = task.create(vision.RunningMode.IMAGE)
            result = None
            for _ in range(args.warmup):
                result = task.image(runner, image)
            for _ in range(args.runs):
                result = timed(lambda: task.image(runner, image))
            found = task.count(result) if result is not None else 0
            mode = "image"
        runner.close()
        print(json.dumps({"task": args.task, "file": os.path.abspath(path), "mode": mode, "frames": len(times),
                          "times_ms": times,
                          "median_ms": statistics.median(times) if times else None,
                          "mean_ms": statistics.fmean(times) if times else None,
                          "cpu_ms": cpu[0], "wall_ms": sum(times),
                          "peak_rss_mb": peak_rss_mb(), "version": getattr(mp, "__version__", None),
                          task.count_key: found}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
