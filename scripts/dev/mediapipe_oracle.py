#!/usr/bin/env python3
"""A slow, transparent re-implementation of MediaPipe 1.2.2's hand and pose pipelines (dev loop).

It runs the same .tflite models through LiteRT and implements every graph step in plain Python
(numpy) with MediaPipe's arithmetic, following docs/pipelines.md. It reproduces MediaPipe's
reference landmarks in ../shared/testdata/reference to about 1e-5 (mean, normalised) in image
mode, which makes it a stage-by-stage oracle for the Swift tasks: dump its palm detections,
rects or tensors and compare with ours.

    /tmp/mpvenv/bin/python scripts/dev/mediapipe_oracle.py hands hand_victory_right_01 ...
    /tmp/mpvenv/bin/python scripts/dev/mediapipe_oracle.py pose pose_fullbody_frisbee ...
    /tmp/mpvenv/bin/python scripts/dev/mediapipe_oracle.py hands-video video_hand_samples_test 60
    /tmp/mpvenv/bin/python scripts/dev/mediapipe_oracle.py pose-video video_pose_squats 30

Needs numpy, pillow, opencv (cv2: only RotatedRect corners and the 3x3 inverse; any version)
and ai_edge_litert. Models come from ../shared/models (the bundles MediaPipe's references used),
unpacked to a temporary folder.
"""
import json
import math
import os
import sys
import tempfile
import zipfile

import cv2
import numpy as np
from ai_edge_litert.interpreter import Interpreter
from PIL import Image

from perspective_reference import lapack_perspective_inverse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("VISION_TASKS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
REF = os.path.join(SHARED, "testdata", "reference")
f32 = np.float32


# ---------------------------------------------------------------------------------------------
# Image to tensor: OpenCV's classic fixed-point warpPerspective (see docs/pipelines.md).

def _weights_q15():
    one_d = [(f32(1) - f32(i) * f32(1 / 32), f32(i) * f32(1 / 32)) for i in range(32)]
    tab = np.zeros((1024, 4), np.int64)
    for i in range(32):
        for j in range(32):
            w = [int(np.rint(np.float64(f32(one_d[i][a] * one_d[j][b])) * 32768)) for a in (0, 1) for b in (0, 1)]
            w = [min(v, 32767) for v in w]
            w[3] += 32768 - sum(w)
            tab[i * 32 + j] = w
    return tab


WEIGHTS = _weights_q15()


def crop_matrix(cx, cy, w, h, rot, ow, oh):
    """Destination -> source matrix of cv::warpPerspective for MediaPipe's crop."""
    angle = f32(np.float64(f32(f32(rot) * f32(180))) / math.pi)
    pts = cv2.boxPoints(((float(cx), float(cy)), (float(w), float(h)), float(angle))).astype(np.float32)
    dst = np.array([[0, oh], [0, 0], [ow, 0], [ow, oh]], np.float32)
    return lapack_perspective_inverse(pts, dst)


def warp(src, M, ow, oh, border):
    h, w, _ = src.shape
    bh0 = min(16, oh)
    bw0 = min(1024 // bh0, ow)
    xs = np.arange(ow)
    xb = ((xs // bw0) * bw0).astype(np.float64)
    x1 = (xs - (xs // bw0) * bw0).astype(np.float64)
    m = M.reshape(-1)
    out = np.zeros((oh, ow, 3), np.uint8)
    for y in range(oh):
        X0 = m[0] * xb + m[1] * y + m[2]
        Y0 = m[3] * xb + m[4] * y + m[5]
        W0 = m[6] * xb + m[7] * y + m[8]
        W = W0 + m[6] * x1
        W = np.where(W != 0, 32.0 / np.where(W != 0, W, 1), 0.0)
        X = np.rint(np.clip((X0 + m[0] * x1) * W, -2 ** 31, 2 ** 31 - 1)).astype(np.int64)
        Y = np.rint(np.clip((Y0 + m[3] * x1) * W, -2 ** 31, 2 ** 31 - 1)).astype(np.int64)
        sx, sy = X >> 5, Y >> 5
        wt = WEIGHTS[(Y & 31) * 32 + (X & 31)]
        acc = np.zeros((ow, 3), np.int64)
        for k, (dy, dx) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            xx, yy = sx + dx, sy + dy
            p = src[np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1)].astype(np.int64)
            if border == "zero":
                p *= ((xx >= 0) & (xx < w) & (yy >= 0) & (yy < h))[:, None]
            acc += p * wt[:, k:k + 1]
        out[y] = (acc + 16384) >> 15
    return out


def image_to_tensor(src, rect, ow, oh, keep_aspect, border, lo, hi):
    """rect: normalised (xc, yc, w, h, rotation) or None. Returns tensor, padding, pixel roi."""
    H, W = src.shape[:2]
    if rect is None:
        cx, cy, rw, rh, rot = f32(0.5) * W, f32(0.5) * H, f32(W), f32(H), f32(0)
    else:
        cx, cy, rw, rh, rot = f32(rect[0] * W), f32(rect[1] * H), f32(rect[2] * W), f32(rect[3] * H), f32(rect[4])
    pad = (f32(0),) * 4
    if keep_aspect:
        ta, ra = f32(f32(oh) / f32(ow)), f32(rh / rw)
        if ta > ra:
            rw, rh, v = rw, f32(rw * ta), f32((f32(1) - ra / ta) / f32(2))
            pad = (f32(0), v, f32(0), v)
        else:
            rw, rh, hp = f32(rh / ta), rh, f32((f32(1) - ta / ra) / f32(2))
            pad = (hp, f32(0), hp, f32(0))
    pixels = warp(src, crop_matrix(cx, cy, rw, rh, rot, ow, oh), ow, oh, border)
    scale = f32((f32(hi) - f32(lo)) / f32(255))
    tensor = (pixels.astype(np.float64) * np.float64(scale) + np.float64(f32(lo))).astype(np.float32)
    return tensor[None], pad, (cx, cy, rw, rh, rot)


# ---------------------------------------------------------------------------------------------
# Detection, rects, projections.

def anchors(strides, size):
    out, i = [], 0
    while i < len(strides):
        j, count = i, 0
        while j < len(strides) and strides[j] == strides[i]:
            count += 2
            j += 1
        fm = math.ceil(size / strides[i])
        for y in range(fm):
            for x in range(fm):
                out += [((f32(x) + f32(0.5)) / f32(fm), (f32(y) + f32(0.5)) / f32(fm))] * count
        i = j
    return np.array(out, np.float32)


def sigmoid(x):
    with np.errstate(over="ignore"):
        return f32(f32(1) / (f32(1) + np.exp(f32(-x), dtype=np.float32)))


def normalize_radians(a):
    a = float(f32(a))
    return f32(a - 2 * math.pi * math.floor((a + math.pi) / (2 * math.pi)))


def decode(boxes, scores, anc, scale, nkp, min_score):
    dets = []
    for i in range(len(anc)):
        s = sigmoid(np.clip(scores[i], -100, 100))
        if s < f32(min_score):
            continue
        ax, ay = anc[i]
        xc, yc = boxes[i, 0] / f32(scale) + ax, boxes[i, 1] / f32(scale) + ay
        w, h = boxes[i, 2] / f32(scale), boxes[i, 3] / f32(scale)
        xmin, ymin = f32(xc - w / f32(2)), f32(yc - h / f32(2))
        xmax, ymax = f32(xc + w / f32(2)), f32(yc + h / f32(2))
        kps = [(f32(boxes[i, 4 + 2 * k] / f32(scale) + ax), f32(boxes[i, 5 + 2 * k] / f32(scale) + ay)) for k in range(nkp)]
        if xmax - xmin >= 0 and ymax - ymin >= 0:
            dets.append([s, xmin, ymin, f32(xmax - xmin), f32(ymax - ymin), kps])
    return dets


def weighted_nms(dets, threshold):
    def area(b):
        return f32(f32(f32(b[1] + b[3]) - b[1]) * f32(f32(b[2] + b[4]) - b[2]))

    def iou(a, b):
        ax1, ay1, bx1, by1 = f32(a[1] + a[3]), f32(a[2] + a[4]), f32(b[1] + b[3]), f32(b[2] + b[4])
        if bx1 < a[1] or ax1 < b[1] or by1 < a[2] or ay1 < b[2]:
            return f32(0)
        inter = f32(f32(min(ax1, bx1) - max(a[1], b[1])) * f32(min(ay1, by1) - max(a[2], b[2])))
        norm = f32(area(a) + area(b) - inter)
        return f32(inter / norm) if norm > 0 else f32(0)

    order = sorted(range(len(dets)), key=lambda i: (-dets[i][0], i))
    remaining = [dets[i] for i in order]
    out = []
    while remaining:
        top = remaining[0]
        cand = [r for r in remaining if iou(r, top) > f32(threshold)]
        rest = [r for r in remaining if not iou(r, top) > f32(threshold)]
        if cand:
            total, acc = f32(0), [f32(0)] * 4
            kp = [[f32(0), f32(0)] for _ in top[5]]
            for c in cand:
                s = c[0]
                total = f32(total + s)
                acc = [f32(acc[0] + f32(c[1] * s)), f32(acc[1] + f32(c[2] * s)),
                       f32(acc[2] + f32(f32(c[1] + c[3]) * s)), f32(acc[3] + f32(f32(c[2] + c[4]) * s))]
                for k in range(len(kp)):
                    kp[k] = [f32(kp[k][0] + f32(c[5][k][0] * s)), f32(kp[k][1] + f32(c[5][k][1] * s))]
            xmin, ymin = f32(acc[0] / total), f32(acc[1] / total)
            top = [top[0], xmin, ymin, f32(f32(acc[2] / total) - xmin), f32(f32(acc[3] / total) - ymin),
                   [(f32(k[0] / total), f32(k[1] / total)) for k in kp]]
        out.append(top)
        if len(rest) == len(remaining):
            break
        remaining = rest
    return out


def transform_rect(rect, W, H, scale, shift_y):
    """RectTransformationCalculator with shift_x 0, square_long."""
    xc, yc, w, h, rot = rect
    if rot == 0:
        yc = f32(yc + f32(h * f32(shift_y)))
    else:
        c, s = np.cos(rot, dtype=np.float32), np.sin(rot, dtype=np.float32)
        xs = f32(f32(f32(f32(f32(W) * w) * f32(0)) * c) - f32(f32(f32(f32(H) * h) * f32(shift_y)) * s)) / f32(W)
        ys = f32(f32(f32(f32(f32(W) * w) * f32(0)) * s) + f32(f32(f32(f32(H) * h) * f32(shift_y)) * c)) / f32(H)
        xc, yc = f32(xc + xs), f32(yc + ys)
    long_side = max(f32(w * W), f32(h * H))
    return (xc, yc, f32(f32(long_side / f32(W)) * f32(scale)), f32(f32(long_side / f32(H)) * f32(scale)), rot)


def project(lms, rect):
    """LandmarkProjectionCalculator with a NORM_RECT (x, y; z times the rect width)."""
    xc, yc, w, h, rot = rect
    c, s = np.cos(rot, dtype=np.float32), np.sin(rot, dtype=np.float32)
    out = []
    for lm in lms:
        x, y = f32(lm[0] - f32(0.5)), f32(lm[1] - f32(0.5))
        nx, ny = f32(f32(c * x) - f32(s * y)), f32(f32(s * x) + f32(c * y))
        out.append((f32(nx * w + xc), f32(ny * h + yc), f32(lm[2] * w)) + tuple(lm[3:]))
    return out


# ---------------------------------------------------------------------------------------------
# Hands.

class Hands:
    def __init__(self, models, num_hands=2, min_detection=0.5, min_presence=0.5, min_tracking=0.5):
        self.palm = Interpreter(os.path.join(models, "hand_detector.tflite"))
        self.palm.allocate_tensors()
        self.lmk = Interpreter(os.path.join(models, "hand_landmarks_detector.tflite"))
        self.lmk.allocate_tensors()
        self.anchors = anchors([8, 16, 16, 16], 192)
        self.num, self.min_det, self.min_presence, self.min_tracking = num_hands, min_detection, min_presence, min_tracking
        self.tracked = []

    def detect(self, src):
        H, W = src.shape[:2]
        t, pad, roi = image_to_tensor(src, None, 192, 192, True, "zero", 0.0, 1.0)
        self.palm.set_tensor(self.palm.get_input_details()[0]["index"], t)
        self.palm.invoke()
        od = self.palm.get_output_details()
        dets = weighted_nms(decode(self.palm.get_tensor(od[0]["index"])[0], self.palm.get_tensor(od[1]["index"])[0, :, 0],
                                   self.anchors, 192, 7, self.min_det), 0.3)
        cx, cy, rw, rh, _ = roi
        m0, m3 = f32(f32(rw * f32(1)) * f32(1)) * f32(f32(1) / f32(W)), f32(f32(f32(f32(-0.5) * rw) + f32(0)) + cx) * f32(f32(1) / f32(W))
        m5, m7 = f32(rh * f32(1)) * f32(f32(1) / f32(H)), f32(f32(f32(-0.5) * rh) - f32(0) + cy) * f32(f32(1) / f32(H))
        rects = []
        for d in dets:
            kps = [(f32(x * m0 + y * f32(0) + m3), f32(x * f32(0) + y * m5 + m7)) for x, y in d[5]]
            px = [f32(x * m0 + m3) for x in (d[1], f32(d[1] + d[3]))]
            py = [f32(y * m5 + m7) for y in (d[2], f32(d[2] + d[4]))]
            bx, by, bw, bh = min(px), min(py), f32(max(px) - min(px)), f32(max(py) - min(py))
            x0, y0, x1, y1 = f32(kps[0][0] * W), f32(kps[0][1] * H), f32(kps[2][0] * W), f32(kps[2][1] * H)
            rot = normalize_radians(f32(f32(90) - np.arctan2(f32(-(y1 - y0)), f32(x1 - x0), dtype=np.float32)))
            rects.append(transform_rect((f32(bx + bw / f32(2)), f32(by + bh / f32(2)), bw, bh, rot), W, H, 2.6, -0.5))
        return rects[:self.num]

    def landmarks(self, src, rect):
        t, _, _ = image_to_tensor(src, rect, 224, 224, False, "replicate", 0.0, 1.0)
        self.lmk.set_tensor(self.lmk.get_input_details()[0]["index"], t)
        self.lmk.invoke()
        od = {o["name"]: self.lmk.get_tensor(o["index"]) for o in self.lmk.get_output_details()}
        if not float(od["Identity_1"].reshape(-1)[0]) > self.min_presence:
            return None
        raw = od["Identity"].reshape(21, 3)
        lms = project([(f32(x / f32(224)), f32(y / f32(224)), f32(f32(z / f32(224)) / f32(0.4))) for x, y, z in raw], rect)
        return lms

    def next_rect(self, lms, W, H):
        part = [lms[i] for i in (0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18)]
        x0, y0 = f32(part[0][0] * W), f32(part[0][1] * H)
        x1 = f32(f32(f32(f32(part[4][0] + part[8][0]) / f32(2)) + part[6][0]) / f32(2) * f32(W))
        y1 = f32(f32(f32(f32(part[4][1] + part[8][1]) / f32(2)) + part[6][1]) / f32(2) * f32(H))
        rot = normalize_radians(f32(f32(math.pi * 0.5) - np.arctan2(f32(-(y1 - y0)), f32(x1 - x0), dtype=np.float32)))
        rev = normalize_radians(-rot)
        xs, ys = [p[0] for p in part], [p[1] for p in part]
        cx0, cy0 = f32((max(xs) + min(xs)) / f32(2)), f32((max(ys) + min(ys)) / f32(2))
        cr, sr = np.cos(rev, dtype=np.float32), np.sin(rev, dtype=np.float32)
        proj = [(f32(f32(f32(p[0] - cx0) * W) * cr - f32(f32(p[1] - cy0) * H) * sr),
                 f32(f32(f32(p[0] - cx0) * W) * sr + f32(f32(p[1] - cy0) * H) * cr)) for p in part]
        px, py = [p[0] for p in proj], [p[1] for p in proj]
        pcx, pcy = f32((max(px) + min(px)) / f32(2)), f32((max(py) + min(py)) / f32(2))
        c, s = np.cos(rot, dtype=np.float32), np.sin(rot, dtype=np.float32)
        cx = f32(f32(pcx * c - pcy * s) + f32(W) * cx0)
        cy = f32(f32(pcx * s + pcy * c) + f32(H) * cy0)
        rect = (f32(cx / f32(W)), f32(cy / f32(H)), f32(f32(max(px) - min(px)) / f32(W)), f32(f32(max(py) - min(py)) / f32(H)), rot)
        return transform_rect(rect, W, H, 2.0, -0.1)

    def process(self, src, video=False):
        H, W = src.shape[:2]
        if not video:
            rects = self.detect(src)
        else:
            detected = self.detect(src) if len(self.tracked) < self.num else []
            rects = list(self.tracked)
            for r in detected:  # HandAssociationCalculator: keep tracked, add non-overlapping
                if not any(_iou_unrotated(r, e) > self.min_tracking for e in rects):
                    rects.append(r)
            rects = rects[:self.num]
        hands = []
        for r in rects:
            lms = self.landmarks(src, r)
            if lms is not None:
                hands.append((lms, self.next_rect(lms, W, H)))
        hands = _dedup_hands(hands, W, H)
        self.tracked = [h[1] for h in hands]
        return [h[0] for h in hands]


def _iou_unrotated(a, b):
    def box(r):
        x, y = f32(float(r[0]) - float(r[2]) / 2.0), f32(float(r[1]) - float(r[3]) / 2.0)
        return x, y, f32(x + r[2]), f32(y + r[3])
    ax0, ay0, ax1, ay1 = box(a)
    bx0, by0, bx1, by1 = box(b)
    if bx1 < ax0 or ax1 < bx0 or by1 < ay0 or ay1 < by0:
        return f32(0)
    inter = f32(f32(min(ax1, bx1) - max(ax0, bx0)) * f32(min(ay1, by1) - max(ay0, by0)))
    norm = f32(f32(f32(ax1 - ax0) * f32(ay1 - ay0)) + f32(f32(bx1 - bx0) * f32(by1 - by0)) - inter)
    return f32(inter / norm) if norm > 0 else f32(0)


def _dedup_hands(hands, W, H):
    def dist(a, b):
        return math.sqrt(float(f32(f32(a[0] - b[0]) * W)) ** 2 + float(f32(f32(a[1] - b[1]) * H)) ** 2)

    def baseline(l):
        return max(dist(l[0], l[5]), dist(l[5], l[17]), dist(l[17], l[0]))

    def bounds(l):
        return min(p[0] for p in l), min(p[1] for p in l), max(p[0] for p in l), max(p[1] for p in l)

    def iou(a, b):
        area_a, area_b = (a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1])
        if area_a <= 0 or area_b <= 0:
            return 0
        inter = max(min(a[3], b[3]) - max(a[1], b[1]), 0) * max(min(a[2], b[2]) - max(a[0], b[0]), 0)
        return inter / (area_a + area_b - inter)

    kept = []
    for h in hands:
        dup = False
        for k in kept:
            thr = max(baseline(h[0]), baseline(k[0])) * 0.2
            matched = sum(1 for a, b in zip(h[0], k[0]) if dist(a, b) < thr)
            if matched >= 10 and iou(bounds(h[0]), bounds(k[0])) > 0.2:
                dup = True
                break
        if not dup:
            kept.append(h)
    return kept


# ---------------------------------------------------------------------------------------------
# Pose.

class Pose:
    def __init__(self, models, num_poses=2, min_detection=0.5, min_presence=0.5, min_tracking=0.5):
        self.det = Interpreter(os.path.join(models, "pose_detector.tflite"))
        self.det.allocate_tensors()
        self.lmk = Interpreter(os.path.join(models, "pose_landmarks_detector.tflite"))
        self.lmk.allocate_tensors()
        self.anchors = anchors([8, 16, 32, 32, 32], 224)
        self.num, self.min_det, self.min_presence, self.min_tracking = num_poses, min_detection, min_presence, min_tracking
        self.tracked = []

    @staticmethod
    def alignment_rect(p0, p1, W, H):
        xc, yc, xs, ys = f32(p0[0] * W), f32(p0[1] * H), f32(p1[0] * W), f32(p1[1] * H)
        box = f32(f32(np.sqrt(f32(f32(f32(xs - xc) * f32(xs - xc)) + f32(f32(ys - yc) * f32(ys - yc))), dtype=np.float32)) * 2)
        rot = normalize_radians(f32(f32(math.pi * 90 / 180.0) - np.arctan2(f32(-(ys - yc)), f32(xs - xc), dtype=np.float32)))
        return transform_rect((f32(xc / f32(W)), f32(yc / f32(H)), f32(box / f32(W)), f32(box / f32(H)), rot), W, H, 1.25, 0.0)

    def detect(self, src):
        H, W = src.shape[:2]
        t, pad, _ = image_to_tensor(src, None, 224, 224, True, "zero", -1.0, 1.0)
        self.det.set_tensor(self.det.get_input_details()[0]["index"], t)
        self.det.invoke()
        od = self.det.get_output_details()
        dets = weighted_nms(decode(self.det.get_tensor(od[0]["index"])[0], self.det.get_tensor(od[1]["index"])[0, :, 0],
                                   self.anchors, 224, 4, self.min_det), 0.5)
        left, top, right, bottom = pad
        lr, tb = f32(left + right), f32(top + bottom)
        rects = []
        for d in dets:
            kps = [(f32(f32(x - left) / f32(f32(1) - lr)), f32(f32(y - top) / f32(f32(1) - tb))) for x, y in d[5]]
            rects.append(self.alignment_rect(kps[0], kps[1], W, H))
        return rects  # expanded rects are not clipped inside the detector graph

    def landmarks(self, src, rect):
        H, W = src.shape[:2]
        t, _, _ = image_to_tensor(src, rect, 256, 256, False, "replicate", 0.0, 1.0)
        self.lmk.set_tensor(self.lmk.get_input_details()[0]["index"], t)
        self.lmk.invoke()
        od = {o["name"]: self.lmk.get_tensor(o["index"]) for o in self.lmk.get_output_details()}
        if not float(od["Identity_1"].reshape(-1)[0]) > self.min_presence:
            return None
        raw, hm = od["Identity"].reshape(39, 5), od["Identity_3"][0]
        lms = []
        for i, (x, y, z, v, p) in enumerate(raw):
            nx, ny = f32(x / f32(256)), f32(y / f32(256))
            col, row = int(nx * 64), int(ny * 64)
            if 0 <= col < 64 and 0 <= row < 64:
                total, wc, wr, best = f32(0), f32(0), f32(0), f32(0)
                for r in range(max(0, row - 3), min(64, row + 4)):
                    for c in range(max(0, col - 3), min(64, col + 4)):
                        conf = sigmoid(hm[r, c, i])
                        total, best = f32(total + conf), max(best, conf)
                        wc, wr = f32(wc + f32(c * conf)), f32(wr + f32(r * conf))
                if best >= f32(0.5) and total > 0:
                    nx, ny = f32(f32(wc / f32(64)) / total), f32(f32(wr / f32(64)) / total)
            lms.append((nx, ny, f32(f32(z / f32(256)) / f32(1)), sigmoid(v), sigmoid(p)))
        projected = project(lms, rect)
        return projected[:33], self.alignment_rect(projected[33], projected[34], W, H)

    def process(self, src, video=False):
        if not video:
            rects = self.detect(src)[:self.num]
        else:
            detected = self.detect(src) if len(self.tracked) < self.num else []
            rects = []
            for r in self.tracked + detected:  # AssociationNormRectCalculator: later wins
                rects = [e for e in rects if not _iou_unrotated(r, e) > self.min_tracking] + [r]
            rects = rects[:self.num]
        poses = [p for p in (self.landmarks(src, r) for r in rects) if p is not None]
        self.tracked = [p[1] for p in poses]
        return [p[0] for p in poses]


# ---------------------------------------------------------------------------------------------

def _models(bundle, inner=None):
    out = tempfile.mkdtemp()
    with zipfile.ZipFile(os.path.join(SHARED, "models", bundle)) as z:
        z.extractall(out)
    if inner:
        with zipfile.ZipFile(os.path.join(out, inner)) as z:
            z.extractall(out)
    return out


def _mean_distance(ours, ref):
    errors = []
    for r in ref:
        if not ours:
            errors.append(None)
            continue
        best = min(ours, key=lambda l: sum(abs(a[0] - b["x"]) + abs(a[1] - b["y"]) for a, b in zip(l, r)))
        errors.append(float(np.mean([math.hypot(a[0] - b["x"], a[1] - b["y"]) for a, b in zip(best, r)])))
    return errors


def main():
    mode, names = sys.argv[1], sys.argv[2:]
    if mode.startswith("hands"):
        task, key = Hands(_models("gesture_recognizer.task", "hand_landmarker.task")), "gesture"
    else:
        task, key = Pose(_models("pose_landmarker_full.task")), "pose"
    if mode.endswith("video"):
        name, count = names[0], int(names[1]) if len(names) > 1 else 30
        cap = cv2.VideoCapture(os.path.join(SHARED, "testdata", "media", name + ".mp4"))
        refs = [json.loads(line) for line in open(os.path.join(REF, name + ".jsonl"))]
        for ref in refs[:count]:
            ok, frame = cap.read()
            if not ok:
                break
            ours = task.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB), video=True)
            errors = _mean_distance(ours, ref[key]["landmarks"])
            print(f"frame {ref['frame']:4d} t={ref['timestampInMilliseconds']:6d} ms  ref {len(ref[key]['landmarks'])} ours {len(ours)}  "
                  + " ".join("-" if e is None else f"{e:.2e}" for e in errors))
        return
    for name in names:
        ref = json.load(open(os.path.join(REF, name + ".json")))
        src = np.array(Image.open(os.path.join(REF, ref["pixels"]["file"])).convert("RGB"))
        ours = task.process(src)
        errors = _mean_distance(ours, ref[key]["landmarks"])
        print(f"{name:45s} ref {len(ref[key]['landmarks'])} ours {len(ours)}  mean distance "
              + " ".join("-" if e is None else f"{e:.2e}" for e in errors))


if __name__ == "__main__":
    main()
