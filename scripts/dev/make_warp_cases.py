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


def _idamax(col):
    best = 0
    for i in range(1, len(col)):
        if abs(col[i]) > abs(col[best]):
            best = i
    return best


def _dgetrf2(a, r0, c0, m, n, piv):
    """Reference LAPACK dgetrf2 (recursive LU) on the block at (r0, c0), in place."""
    if n == 1:
        p = _idamax([a[r0 + i][c0] for i in range(m)])
        piv[0] = p
        if a[r0 + p][c0] != 0:
            a[r0][c0], a[r0 + p][c0] = a[r0 + p][c0], a[r0][c0]
            if abs(a[r0][c0]) >= np.finfo(np.float64).tiny:
                rec = 1.0 / a[r0][c0]
                for i in range(1, m):
                    a[r0 + i][c0] = a[r0 + i][c0] * rec
            else:
                for i in range(1, m):
                    a[r0 + i][c0] = a[r0 + i][c0] / a[r0][c0]
        return
    if m == 1:
        piv[0] = 0
        return
    n1 = min(m, n) // 2
    n2 = n - n1
    left = [0] * n1
    _dgetrf2(a, r0, c0, m, n1, left)
    for i in range(n1):
        piv[i] = left[i]
        if left[i] != i:
            for c in range(n1, n):
                a[r0 + i][c0 + c], a[r0 + left[i]][c0 + c] = a[r0 + left[i]][c0 + c], a[r0 + i][c0 + c]
    for j in range(n2):
        for k in range(n1):
            bk = a[r0 + k][c0 + n1 + j]
            if bk != 0:
                for i in range(k + 1, n1):
                    a[r0 + i][c0 + n1 + j] = a[r0 + i][c0 + n1 + j] - bk * a[r0 + i][c0 + k]
    for j in range(n2):
        for l in range(n1):
            temp = -a[r0 + l][c0 + n1 + j]
            for i in range(m - n1):
                a[r0 + n1 + i][c0 + n1 + j] = a[r0 + n1 + i][c0 + n1 + j] + temp * a[r0 + n1 + i][c0 + l]
    right = [0] * min(m - n1, n2)
    _dgetrf2(a, r0 + n1, c0 + n1, m - n1, n2, right)
    for i in range(len(right)):
        p = right[i] + n1
        piv[n1 + i] = p
        if p != n1 + i:
            for c in range(n1):
                a[r0 + n1 + i][c0 + c], a[r0 + p][c0 + c] = a[r0 + p][c0 + c], a[r0 + n1 + i][c0 + c]


def reference_lapack_transform(pts, dst):
    """cv::getPerspectiveTransform solved as reference LAPACK dgesv does (MediaPipe's build),
    then cv::invert's 3x3 closed form (OpenCV's own, no LAPACK)."""
    a = [[0.0] * 8 for _ in range(8)]
    b = [0.0] * 8
    for i in range(4):
        a[i][0] = a[i + 4][3] = float(pts[i][0])
        a[i][1] = a[i + 4][4] = float(pts[i][1])
        a[i][2] = a[i + 4][5] = 1.0
        a[i][6] = float(np.float32(-pts[i][0] * dst[i][0]))
        a[i][7] = float(np.float32(-pts[i][1] * dst[i][0]))
        a[i + 4][6] = float(np.float32(-pts[i][0] * dst[i][1]))
        a[i + 4][7] = float(np.float32(-pts[i][1] * dst[i][1]))
        b[i] = float(dst[i][0])
        b[i + 4] = float(dst[i][1])
    piv = [0] * 8
    _dgetrf2(a, 0, 0, 8, 8, piv)
    for i in range(8):
        if piv[i] != i:
            b[i], b[piv[i]] = b[piv[i]], b[i]
    for k in range(8):
        if b[k] != 0:
            for i in range(k + 1, 8):
                b[i] = b[i] - b[k] * a[i][k]
    for k in range(7, -1, -1):
        if b[k] != 0:
            b[k] = b[k] / a[k][k]
            for i in range(k):
                b[i] = b[i] - b[k] * a[i][k]
    ok, inverse = cv2.invert(np.array(b + [1.0], np.float64).reshape(3, 3))
    return inverse


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
            "lapackInverseBits": [int(v) for v in np.asarray(reference_lapack_transform(pts, dst), np.float64).reshape(-1).view(np.uint64)],
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
                "lapackInverseBits": [int(v) for v in np.asarray(reference_lapack_transform(pts, dst), np.float64).reshape(-1).view(np.uint64)],
                "warped": base64.b64encode(warped.tobytes()).decode(),
            })
    with open(out_path, "w") as f:
        json.dump({"opencv": cv2.__version__, "cases": cases}, f)
    print(f"wrote {len(cases)} cases from OpenCV {cv2.__version__} to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/warp_cases.json")
