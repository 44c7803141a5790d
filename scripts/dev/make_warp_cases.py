#!/usr/bin/env python3
"""Generates OpenCV reference cases for VisionTasks' image-to-tensor warp (dev loop only).

MediaPipe 1.2.2 crops model inputs with OpenCV's *classic* fixed-point cv::warpPerspective
(INTER_LINEAR, 1/32-pixel coordinates, 15-bit weights). OpenCV >= 4.11 replaced that path with
float kernels, so the reference must come from an OpenCV <= 4.10 build, e.g.

    python3 -m venv /tmp/cv410
    /tmp/cv410/bin/pip install numpy opencv-python-headless==4.10.0.84
    /tmp/cv410/bin/python scripts/dev/make_warp_cases.py /tmp/warp_cases.json

Then run the parity test with the file:

    VISION_TASKS_WARP_CASES=/tmp/warp_cases.json swift test --filter OpenCVParityTests

Each case: a random RGB image (base64, packed rows), a rotated crop rect (centre, size, rotation in radians, as
MediaPipe's RotatedRect), an output size and border mode, and what OpenCV produces:
the inverse matrix cv::warpPerspective evaluates (bit patterns of the doubles; this OpenCV
solves the 8x8 system with OpenBLAS's LAPACK), the same matrix solved the way reference LAPACK
dgesv does (MediaPipe 1.2.2 links reference LAPACK; VisionTasks reproduces this one), and the
8-bit warped pixels (base64). The script refuses to run on OpenCV >= 4.11.
"""
import base64
import json
import math
import sys

import cv2
import numpy as np

from perspective_reference import lapack_perspective_inverse


def main(out_path, count=240, seed=20261121):
    major, minor = (int(v) for v in cv2.__version__.split(".")[:2])
    if (major, minor) >= (4, 11):
        sys.exit(f"OpenCV {cv2.__version__} uses the new float warp kernels; use <= 4.10")
    rng = np.random.default_rng(seed)
    sizes = [(224, 224), (192, 192), (256, 256), (64, 48), (31, 77)]
    cases = []
    for i in range(count):
        h, w = int(rng.integers(1, 97)), int(rng.integers(1, 97))
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        ow, oh = sizes[i % len(sizes)]
        cx = np.float32(rng.uniform(-0.3, 1.3) * w)
        cy = np.float32(rng.uniform(-0.3, 1.3) * h)
        rw = np.float32(rng.uniform(0.05, 2.5) * max(w, h))
        rh = np.float32(rng.uniform(0.05, 2.5) * max(w, h))
        if i % 6 == 0:
            rot = np.float32(0)
        elif i % 6 == 1:
            rot = np.float32(math.pi / 2 * int(rng.integers(-2, 3)))
        else:
            rot = np.float32(rng.uniform(-math.pi, math.pi))
        # RotatedRect angle as MediaPipe computes it: roi.rotation * 180.f / M_PI, stored as float.
        angle = np.float32(np.float64(np.float32(rot * np.float32(180))) / math.pi)
        pts = cv2.boxPoints(((float(cx), float(cy)), (float(rw), float(rh)), float(angle))).astype(np.float32)
        dst = np.array([[0, oh], [0, 0], [ow, 0], [ow, oh]], np.float32)
        forward = cv2.getPerspectiveTransform(pts, dst)
        ok, inverse = cv2.invert(forward)
        border = "zero" if i % 2 == 0 else "replicate"
        mode = cv2.BORDER_CONSTANT if border == "zero" else cv2.BORDER_REPLICATE
        warped = cv2.warpPerspective(image, forward, (ow, oh), flags=cv2.INTER_LINEAR, borderMode=mode)
        cases.append({
            "width": w, "height": h, "pixels": base64.b64encode(image.tobytes()).decode(),
            "roi": [float(cx), float(cy), float(rw), float(rh), float(rot)],
            "outputWidth": ow, "outputHeight": oh, "border": border,
            "inverseBits": [int(v) for v in np.asarray(inverse, np.float64).reshape(-1).view(np.uint64)],
            "lapackInverseBits": [int(v) for v in np.asarray(lapack_perspective_inverse(pts, dst), np.float64).reshape(-1).view(np.uint64)],
            "warped": base64.b64encode(warped.tobytes()).decode(),
        })
    # Whole-image letterbox crops (the detectors' case), with image sizes whose scale to the
    # tensor puts many source coordinates exactly halfway between two 1/32 steps: the rounding
    # then depends on the last bits of the matrix.
    for i, (w, h) in enumerate([(675, 500), (99, 201), (387, 387), (1203, 640), (93, 45), (640, 480),
                                (1280, 720), (225, 400), (333, 999), (57, 171)]):
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        for ow, oh in ((192, 192), (224, 224)):
            side = np.float32(max(w, h))
            cx, cy = np.float32(0.5) * np.float32(w), np.float32(0.5) * np.float32(h)
            rot = np.float32(0)
            pts = cv2.boxPoints(((float(cx), float(cy)), (float(side), float(side)), 0.0)).astype(np.float32)
            dst = np.array([[0, oh], [0, 0], [ow, 0], [ow, oh]], np.float32)
            forward = cv2.getPerspectiveTransform(pts, dst)
            ok, inverse = cv2.invert(forward)
            warped = cv2.warpPerspective(image, forward, (ow, oh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
            cases.append({
                "width": w, "height": h, "pixels": base64.b64encode(image.tobytes()).decode(),
                "roi": [float(cx), float(cy), float(side), float(side), 0.0],
                "outputWidth": ow, "outputHeight": oh, "border": "zero",
                "inverseBits": [int(v) for v in np.asarray(inverse, np.float64).reshape(-1).view(np.uint64)],
                "lapackInverseBits": [int(v) for v in np.asarray(lapack_perspective_inverse(pts, dst), np.float64).reshape(-1).view(np.uint64)],
                "warped": base64.b64encode(warped.tobytes()).decode(),
            })
    with open(out_path, "w") as f:
        json.dump({"opencv": cv2.__version__, "cases": cases}, f)
    print(f"wrote {len(cases)} cases from OpenCV {cv2.__version__} to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/warp_cases.json")
