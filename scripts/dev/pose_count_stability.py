#!/usr/bin/env python3
"""How stable is the number of poses per frame? MediaPipe against itself, against VisionTasks.

VisionTasks finds the same number of poses as MediaPipe's references on every image and every
frame of the body videos, but not on every frame of the hand close-up videos (numPoses 2;
docs/pose.md gives the count). This script tells a logic difference from the tracking loop
amplifying numeric noise: it runs MediaPipe 1.2.2 (Python Tasks API, the settings of
shared/tools/mediapipe_reference.py: numPoses 2, thresholds 0.5, masks on) on the frames of a
video (decoded as that tool decodes them) in IMAGE mode, and in VIDEO mode with and without
minimal perturbations, optionally VisionTasks too, and compares the per-frame pose counts.
Findings: docs/pose.md ("Hand videos") and docs/pipelines.md §7.

    PY=/tmp/mpvenv/bin/python
    swift build --package-path Apps -c release --product vision-tasks
    # Everything for the three hand videos (MediaPipe runs are cached in --out; ~6 min,
    # ~11 min with --perturb-ours, which also runs VisionTasks on every perturbation):
    $PY scripts/dev/pose_count_stability.py all --quiet --out /tmp/posecounts \
        --ours Apps/.build/release/vision-tasks --perturb-ours
    # The body videos, for comparison:
    $PY scripts/dev/pose_count_stability.py all --quiet --out /tmp/posecounts --ours Apps/.build/release/vision-tasks \
        video_pose_squats video_pose_arms_raise_indoor video_upperbody_hands_talking
    # Single runs and comparisons (the first file is the baseline):
    $PY scripts/dev/pose_count_stability.py mediapipe video_hand_samples_test --mode video --perturb at:0.75,0.75 -o /tmp/a.jsonl
    $PY scripts/dev/pose_count_stability.py compare ../shared/testdata/reference/video_hand_samples_test.jsonl /tmp/a.jsonl
    # VisionTasks' tracking state on the frames that disagree: build with the trace patch,
    # run, and list (then `git checkout Sources/` to drop the patch):
    git apply scripts/dev/pose_trace.patch && swift build --package-path Apps -c release --product vision-tasks
    VT_POSE_DEBUG=1 Apps/.build/release/vision-tasks pose --num-poses 2 --segmentation-masks --no-progress \
        --output-format jsonl ../shared/testdata/media/video_hand_samples_test.mp4 -o /tmp/t.jsonl 2> /tmp/t.txt
    $PY scripts/dev/pose_count_stability.py trace video_hand_samples_test /tmp/t.txt /tmp/t.jsonl
    # MediaPipe against itself on the acceptance bars' per-pair figures (after `all`):
    $PY scripts/dev/pose_count_stability.py bars --out /tmp/posecounts

Perturbations (--perturb), each the smallest change of its kind:
  none      the unperturbed run (reproduces the reference file exactly)
  ts1       every timestamp + 1 ms (with numPoses 2 nothing in the graph depends on time:
            a determinism check)
  start1    frame 0 is not fed; tracking starts at frame 1 (frame 0 counts as missing)
  pixel     frame 0 only: one pixel (the image centre, red channel) changed by one level
  frame0    frame 0 only: every red value +1 (saturating)
  pixelall  every frame: the centre pixel's red value changed by one level
  corner    every frame: the top-left pixel's red value changed by one level
  edge      every frame: the red value of the pixel at the middle of the left edge, one level
  at:FY,FX  every frame: the red value of the pixel at (FY·height, FX·width), one level
  noise     every frame: 0.1 % of the pixels (fixed seed) changed by one level in one channel
The size of each per-frame perturbation is shown as the change it makes to MediaPipe's
IMAGE-mode landmarks (mean distance of matched poses), beside VisionTasks' own IMAGE-mode
distance to MediaPipe (its numeric difference): "(<= ours)" marks perturbations smaller than it.
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("VISION_TASKS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
MEDIA = os.path.join(SHARED, "testdata", "media")
REF = os.path.join(SHARED, "testdata", "reference")
MODEL = os.path.join(SHARED, "models", "pose_landmarker_full.task")
HAND_VIDEOS = ["video_hand_asl_letters", "video_hand_samples_test", "gif_two_hands_with_mediapipe_overlay"]
SANITY_PERTURBATIONS = ["ts1", "start1", "pixel", "frame0"]
PER_FRAME_PERTURBATIONS = ["corner", "edge", "pixelall", "at:0,0.5", "at:1,0.5", "at:0.5,1", "at:1,1",
                           "at:0.25,0.25", "at:0.25,0.75", "at:0.75,0.25", "at:0.75,0.75", "noise"]
PERTURBATIONS = SANITY_PERTURBATIONS + PER_FRAME_PERTURBATIONS


def media_path(name):
    for ext in (".mp4", ".gif", ".webm", ".avi", ".mov"):
        p = os.path.join(MEDIA, name + ext)
        if os.path.exists(p):
            return p
    if os.path.exists(name):
        return name
    raise SystemExit(f"no video {name} in {MEDIA}")


def frames(path):
    """RGB frames and timestamps exactly as mediapipe_reference.py feeds them."""
    cap = cv2.VideoCapture(path)
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    i = 0
    while True:
        ok, bgr = cap.read()
        if not ok:
            break
        yield i, int(round(i * 1000.0 / fps)), cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        i += 1


def perturbed(name, perturb):
    rng = np.random.default_rng(12345)
    for i, ts, rgb in frames(media_path(name)):
        if perturb == "start1" and i == 0:
            continue
        if perturb == "ts1":
            ts += 1
        if (perturb == "pixel" and i == 0) or perturb == "pixelall":
            rgb = rgb.copy()
            h, w = rgb.shape[:2]
            v = int(rgb[h // 2, w // 2, 0])
            rgb[h // 2, w // 2, 0] = v + 1 if v < 255 else v - 1
        if perturb in ("corner", "edge") or perturb.startswith("at:"):
            rgb = rgb.copy()
            h, w = rgb.shape[:2]
            if perturb.startswith("at:"):
                fy, fx = (float(v) for v in perturb[3:].split(","))
                y, x = min(h - 1, int(fy * h)), min(w - 1, int(fx * w))
            else:
                y, x = (0, 0) if perturb == "corner" else (h // 2, 0)
            v = int(rgb[y, x, 0])
            rgb[y, x, 0] = v + 1 if v < 255 else v - 1
        if perturb == "frame0" and i == 0:
            rgb = rgb.copy()
            r = rgb[:, :, 0].astype(np.int16) + 1
            rgb[:, :, 0] = np.minimum(r, 255).astype(np.uint8)
        if perturb == "noise":
            rgb = rgb.copy()
            h, w = rgb.shape[:2]
            n = max(1, h * w // 1000)
            ys, xs, cs = rng.integers(0, h, n), rng.integers(0, w, n), rng.integers(0, 3, n)
            v = rgb[ys, xs, cs].astype(np.int16)
            v = np.where(v < 255, v + 1, v - 1)
            rgb[ys, xs, cs] = v.astype(np.uint8)
        yield i, ts, np.ascontiguousarray(rgb)


def points(lms, extra=False):
    out = []
    for p in lms:
        d = {"x": round(float(p.x), 6), "y": round(float(p.y), 6), "z": round(float(p.z), 6)}
        if extra:
            d["visibility"] = round(float(p.visibility or 0.0), 6)
            d["presence"] = round(float(p.presence or 0.0), 6)
        out.append(d)
    return out


def run_mediapipe(name, mode, perturb, out):
    import mediapipe as mp
    from mediapipe.tasks.python import BaseOptions, vision
    running = vision.RunningMode.IMAGE if mode == "image" else vision.RunningMode.VIDEO
    landmarker = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
        base_options=BaseOptions(model_asset_path=MODEL), running_mode=running,
        num_poses=2, output_segmentation_masks=True))
    n = 0
    with open(out, "w") as f:
        for i, ts, rgb in perturbed(name, perturb):
            img = mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)
            r = landmarker.detect(img) if mode == "image" else landmarker.detect_for_video(img, ts)
            rec = {"frame": i, "timestampInMilliseconds": ts,
                   "pose": {"landmarks": [points(p, True) for p in r.pose_landmarks],
                            "worldLandmarks": [points(p, True) for p in r.pose_world_landmarks]}}
            f.write(json.dumps(rec) + "\n")
            n += 1
    landmarker.close()
    print(f"{name} ({mode}, perturb {perturb}): {n} frames -> {out}", file=sys.stderr)


def load(path):
    """frame index -> list of poses (each a list of (x, y, visibility, presence))."""
    result = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            poses = rec["pose"]["landmarks"]
            result[rec["frame"]] = [[(p["x"], p["y"], p.get("visibility", 0), p.get("presence", 0)) for p in pose]
                                    for pose in poses]
    return result


def pose_distance(a, b):
    return sum(math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(a, b)) / max(1, len(a))


def compare(base, other):
    """Counts agreement over the frames of `base` (a frame missing in `other` disagrees unless
    `base` has no pose there either), the frames that differ, and the mean landmark distance of
    poses matched greedily on frames with the same count."""
    same, differ, dists = 0, [], []
    for frame, poses in sorted(base.items()):
        theirs = other.get(frame)
        n_other = len(theirs) if theirs is not None else None
        if n_other == len(poses):
            same += 1
            left = list(theirs)
            for p in poses:
                if not left:
                    break
                j = min(range(len(left)), key=lambda k: pose_distance(p, left[k]))
                dists.append(pose_distance(p, left.pop(j)))
        else:
            differ.append((frame, len(poses), n_other))
    total = len(base)
    return {"frames": total, "same": same, "differ": differ,
            "base_poses": sum(len(v) for v in base.values()),
            "other_poses": sum(len(v) for k, v in other.items() if k in base),
            "mean_distance": (sum(dists) / len(dists)) if dists else float("nan"),
            "max_distance": max(dists) if dists else float("nan")}


def paired_distance(base, other):
    """The figure PoseAccuracyTests calls "mean dist": every pose of `base` is paired with the
    nearest unused pose of `other` on the same frame (mean distance over all landmarks), and the
    pair contributes its mean distance over the landmarks `base` sees (visibility > 0.5; all of
    them if none). Returns (sum of the pairs' distances, number of pairs)."""
    total, pairs = 0.0, 0
    for frame, poses in base.items():
        left = list(other.get(frame, []))
        for p in poses:
            if not left:
                break
            j = min(range(len(left)), key=lambda k: pose_distance(p, left[k]))
            q = left.pop(j)
            visible = [(a, b) for a, b in zip(p, q) if a[2] > 0.5] or list(zip(p, q))
            total += sum(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in visible) / len(visible)
            pairs += 1
    return total, pairs


def print_comparison(label, c, show_frames=True):
    pct = 100.0 * c["same"] / c["frames"] if c["frames"] else float("nan")
    print(f"  {label:<44} same count {c['same']:>4}/{c['frames']:<4} ({pct:5.1f} %)  poses {c['base_poses']:>4} vs "
          f"{c['other_poses']:>4}  matched-pose mean dist {c['mean_distance']:.2e} (max {c['max_distance']:.2e})")
    if show_frames and c["differ"]:
        text = " ".join(f"{f}:{a}/{b if b is not None else '-'}" for f, a, b in c["differ"])
        print(f"      differ (frame:base/other): {text}")


def cmd_compare(args):
    base = load(args.files[0])
    print(f"baseline {args.files[0]}")
    for path in args.files[1:]:
        print_comparison(os.path.basename(path), compare(base, load(path)), not args.quiet)


def run_ours(binary, name, mode, out, perturb="none"):
    """VisionTasks' CLI on the video file, or, perturbed, on the perturbed frames piped as raw RGB."""
    command = [binary, "pose", "--num-poses", "2", "--segmentation-masks", "--running-mode", mode,
               "--no-progress", "--output-format", "jsonl", "-o", out]
    if perturb == "none":
        subprocess.run(command + [media_path(name)], check=True)
        return
    if perturb in ("start1", "ts1"):
        raise SystemExit(f"perturbation {perturb} is not available for VisionTasks runs")
    cap = cv2.VideoCapture(media_path(name))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
    cap.release()
    proc = subprocess.Popen(command + ["--raw", f"{w}x{h}:rgb24", "--fps", repr(fps), "-"], stdin=subprocess.PIPE)
    for _, _, rgb in perturbed(name, perturb):
        if rgb.shape[:2] != (h, w):
            raise SystemExit(f"{name}: frame size {rgb.shape[1]}x{rgb.shape[0]}, expected {w}x{h}")
        proc.stdin.write(rgb.tobytes())
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("vision-tasks failed")


def cmd_all(args):
    os.makedirs(args.out, exist_ok=True)
    videos = args.videos or HAND_VIDEOS
    totals = {}

    def add(key, c, base=None, other=None):
        t = totals.setdefault(key, [0, 0, 0.0, 0])
        t[0] += c["same"]
        t[1] += c["frames"]
        if base is not None:
            d, n = paired_distance(base, other)
            t[2] += d
            t[3] += n

    def mp_run(name, mode, perturb):
        path = os.path.join(args.out, f"mp_{name}_{mode}_{perturb.replace(':', '')}.jsonl")
        if not os.path.exists(path) or args.rerun:
            run_mediapipe(name, mode, perturb, path)
        return load(path)

    for name in videos:
        reference = load(os.path.join(REF, name + ".jsonl"))
        image = mp_run(name, "image", "none")
        video = mp_run(name, "video", "none")
        print(f"\n{name}")
        print_comparison("MediaPipe video rerun vs reference", compare(reference, video))
        for p in SANITY_PERTURBATIONS:
            c = compare(video, mp_run(name, "video", p))
            print_comparison(f"MediaPipe video, perturb {p}", c, not args.quiet)
        c = compare(video, image)
        print_comparison("MediaPipe image mode vs its video mode", c, False)
        ours_image_distance = None
        ours_differ = set()
        if args.ours:
            ours = {}
            for mode in ("image", "video"):
                path = os.path.join(args.out, f"ours_{name}_{mode}.jsonl")
                if not os.path.exists(path) or args.rerun_ours:
                    run_ours(args.ours, name, mode, path)
                ours[mode] = load(path)
            c = compare(image, ours["image"])
            print_comparison("IMAGE mode: VisionTasks vs MediaPipe", c)
            add("image mode: VisionTasks vs MediaPipe", c)
            ours_image_distance = c["mean_distance"]
            c = compare(reference, ours["video"])
            print_comparison("VIDEO mode: VisionTasks vs reference", c, not args.quiet)
            add("video mode: VisionTasks vs reference", c, reference, ours["video"])
            ours_differ = {f for f, _, _ in c["differ"]}
        print("  One perturbation on every frame; MediaPipe against itself (and VisionTasks against itself and")
        print("  against the reference, with --ours --perturb-ours):")
        header = f"    {'perturbation':<16} {'MP image-mode landmark change':<36} {'MP video: same count':<22}"
        if args.ours and args.perturb_ours:
            header += f" {'VT video vs VT':<18} {'VT video vs reference'}"
        print(header)
        qualifying, covered = [], set()
        for p in PER_FRAME_PERTURBATIONS:
            effect = compare(image, mp_run(name, "image", p))
            mp_perturbed = mp_run(name, "video", p)
            c = compare(video, mp_perturbed)
            add(f"MediaPipe video perturbed vs MediaPipe video, {p}", c, video, mp_perturbed)
            small = ours_image_distance is not None and 0 < effect["mean_distance"] <= ours_image_distance
            if small:
                qualifying.append(c)
                covered |= {f for f, _, _ in c["differ"]}
            line = (f"    {p:<16} mean {effect['mean_distance']:.1e} max {effect['max_distance']:.1e}"
                    f"{' (<= ours)' if small else '          '}  {c['same']:>4}/{c['frames']} ({100.0 * c['same'] / c['frames']:5.1f} %)")
            if args.ours and args.perturb_ours:
                path = os.path.join(args.out, f"ours_{name}_video_{p.replace(':', '')}.jsonl")
                if not os.path.exists(path) or args.rerun_ours:
                    run_ours(args.ours, name, "video", path, p)
                mine = load(path)
                c_self = compare(ours["video"], mine)
                c_ref = compare(reference, mine)
                add(f"VisionTasks video perturbed vs VisionTasks video, {p}", c_self)
                add(f"VisionTasks video perturbed vs reference, {p}", c_ref, reference, mine)
                line += (f"   {c_self['same']:>4} ({100.0 * c_self['same'] / c_self['frames']:5.1f} %)"
                         f"      {c_ref['same']:>4} ({100.0 * c_ref['same'] / c_ref['frames']:5.1f} %)")
            print(line)
        if qualifying:
            rates = sorted(100.0 * c["same"] / c["frames"] for c in qualifying)
            print(f"  perturbations that change MediaPipe's image-mode landmarks less than VisionTasks' numerics do: "
                  f"{len(qualifying)}, its video-mode self-agreement {rates[0]:.1f} ... {rates[-1]:.1f} %")
            if ours_differ:
                print(f"  frames where VisionTasks differs from the reference that MediaPipe also flips under one of them: "
                      f"{len(ours_differ & covered)}/{len(ours_differ)}")
    print("\nTotals over the videos (same pose count; mean dist as PoseAccuracyTests computes it)")
    for key, (same, frames, dsum, pairs) in totals.items():
        dist = f"   mean dist {dsum / pairs:.2e}" if pairs else ""
        print(f"  {key:<64} {same:>4}/{frames} ({100.0 * same / frames:5.1f} %){dist}")


def parse_trace(path):
    """The stderr of a VisionTasks build with scripts/dev/pose_trace.patch applied (VT_POSE_DEBUG=1):
    per video frame the number of tracked regions, whether the detector ran (and its scores) and the
    landmark model's presence on every region."""
    frames, scores = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("  scores"):
                scores = [float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?", line[len("  scores"):])]
            elif line.startswith("FRAME tracked="):
                tracked = line.split("tracked=")[1].split(" detected=")[0]
                detected = line.split(" detected=")[1].split(" merged=")[0]
                ran = detected != '["-"]'
                frames.append({"tracked": tracked.count("("), "detector": ran,
                               "scores": scores if ran else None, "presence": []})
                scores = None
            elif line.startswith("  presence") and frames:
                frames[-1]["presence"].append(float(line.split()[-1]))
    return frames


def cmd_trace(args):
    frames = parse_trace(args.trace)
    reference = load(os.path.join(REF, args.video + ".jsonl"))
    ours = load(args.ours_jsonl)
    c = compare(reference, ours)
    presences = [p for f in frames for p in f["presence"]]
    print(f"{args.video}: {len(frames)} frames; detector skipped (2 regions tracked) on "
          f"{sum(not f['detector'] for f in frames)}; landmark-model presences {len(presences)}, "
          f"{sum(abs(p - 0.5) < 0.1 for p in presences)} within 0.1 of the threshold; "
          f"{len(c['differ'])} frames with another pose count than the reference")
    for frame, n_ref, n_ours in c["differ"]:
        if frame >= len(frames):
            continue
        f = frames[frame]
        k = frame
        while k >= 0 and frames[k]["detector"]:
            k -= 1
        since = "never" if k < 0 else str(frame - k)
        detector = (f"ran (scores {', '.join(f'{x:.3f}' for x in f['scores'])})" if f["detector"] else "skipped")
        print(f"  frame {frame}: reference {n_ref}, ours {n_ours}; tracked {f['tracked']}, detector {detector}; "
              f"presences {', '.join(f'{p:.3f}' for p in f['presence'])}; frames since the detector was last "
              f"skipped: {since}")


def load_with_world(path):
    """frame index -> (poses' landmarks, poses' world landmarks), the records' dicts as read."""
    result = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rec = json.loads(line)
                result[rec["frame"]] = (rec["pose"]["landmarks"], rec["pose"].get("worldLandmarks", []))
    return result


def cmd_bars(args):
    """MediaPipe against itself on the per-pair figures of the pose acceptance bars: every
    cached video-mode perturbation run in --out (made by `all`) against the unperturbed run, over
    the hand videos together. Poses are paired as PoseAccuracyTests pairs them."""
    def flat(pose):
        return [(p["x"], p["y"], p.get("visibility", 0), p.get("presence", 0)) for p in pose]

    runs = {}
    for path in glob.glob(os.path.join(args.out, "mp_*_video_*.jsonl")):
        for name in args.videos or HAND_VIDEOS:
            prefix = f"mp_{name}_video_"
            if os.path.basename(path).startswith(prefix):
                runs.setdefault(os.path.basename(path)[len(prefix):-len(".jsonl")], []).append(name)
    print(f"{'perturbation':<14}{'same count':>20}{'pairs':>7}{'mean dist':>11}{'max |vis|':>11}"
          f"{'max |pres|':>11}{'max world (m)':>15}")
    for perturb in sorted(p for p in runs if p not in ("none", "ts1")):
        same = frames = pairs = 0
        total = worst_vis = worst_pres = worst_world = 0.0
        for name in runs[perturb]:
            base = load_with_world(os.path.join(args.out, f"mp_{name}_video_none.jsonl"))
            other = load_with_world(os.path.join(args.out, f"mp_{name}_video_{perturb}.jsonl"))
            for frame, (poses, worlds) in base.items():
                theirs, their_worlds = other.get(frame, ([], []))
                frames += 1
                same += len(theirs) == len(poses)
                left = list(range(len(theirs)))
                for i, pose in enumerate(poses):
                    if not left:
                        break
                    j = min(left, key=lambda k: pose_distance(flat(pose), flat(theirs[k])))
                    left.remove(j)
                    a, b = flat(pose), flat(theirs[j])
                    visible = [(p, q) for p, q in zip(a, b) if p[2] > 0.5] or list(zip(a, b))
                    total += sum(math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in visible) / len(visible)
                    pairs += 1
                    worst_vis = max([worst_vis] + [abs(p[2] - q[2]) for p, q in zip(a, b)])
                    worst_pres = max([worst_pres] + [abs(p[3] - q[3]) for p, q in zip(a, b)])
                    if i < len(worlds) and j < len(their_worlds):
                        worst_world = max([worst_world] + [abs(p[k] - q[k]) for p, q in zip(worlds[i], their_worlds[j])
                                                           for k in "xyz"])
        share = f"{same}/{frames} ({100.0 * same / max(1, frames):.1f} %)"
        print(f"{perturb:<14}{share:>20}{pairs:>7}{total / max(1, pairs):>11.2e}{worst_vis:>11.2f}"
              f"{worst_pres:>11.2f}{worst_world:>15.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mediapipe", help="run MediaPipe's PoseLandmarker on the frames of a video")
    m.add_argument("video")
    m.add_argument("--mode", choices=["image", "video"], default="video")
    m.add_argument("--perturb", default="none", help="none, " + ", ".join(PERTURBATIONS) + " or at:FY,FX")
    m.add_argument("-o", "--out", required=True)
    c = sub.add_parser("compare", help="per-frame pose counts of runs against the first")
    c.add_argument("files", nargs="+")
    c.add_argument("--quiet", action="store_true", help="do not list the frames that differ")
    a = sub.add_parser("all", help="every MediaPipe run and comparison for the hand videos")
    a.add_argument("--out", required=True)
    a.add_argument("--ours", help="the vision-tasks binary: also run and compare VisionTasks")
    a.add_argument("--rerun", action="store_true", help="rerun MediaPipe even if its output exists")
    a.add_argument("--rerun-ours", action="store_true", help="rerun VisionTasks even if its output exists")
    a.add_argument("--perturb-ours", action="store_true",
                   help="also run VisionTasks on every per-frame perturbation (raw frames through the CLI)")
    a.add_argument("--quiet", action="store_true")
    a.add_argument("videos", nargs="*")
    t = sub.add_parser("trace", help="VisionTasks' tracking trace on the frames that disagree with the reference")
    t.add_argument("video")
    t.add_argument("trace", help="stderr of the traced build (scripts/dev/pose_trace.patch, VT_POSE_DEBUG=1)")
    t.add_argument("ours_jsonl", help="the traced run's output (vision-tasks pose --num-poses 2 ... -o)")
    b = sub.add_parser("bars", help="MediaPipe against itself on the acceptance bars' per-pair figures (cached runs of `all`)")
    b.add_argument("--out", required=True)
    b.add_argument("videos", nargs="*")
    args = ap.parse_args()
    if args.cmd == "bars":
        cmd_bars(args)
        return
    if args.cmd == "trace":
        cmd_trace(args)
        return
    if args.cmd == "mediapipe":
        run_mediapipe(args.video, args.mode, args.perturb, args.out)
    elif args.cmd == "compare":
        cmd_compare(args)
    else:
        cmd_all(args)


if __name__ == "__main__":
    main()
