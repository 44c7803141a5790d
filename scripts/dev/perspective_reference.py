"""cv::getPerspectiveTransform as MediaPipe 1.2.2's build computes it: the 8x8 system solved the
way reference LAPACK's dgesv does (recursive LU, dgetrf2, then the triangular solves), then
cv::invert's 3x3 closed form. Shared by the dev scripts that need MediaPipe's crop matrix
bit for bit (make_warp_cases.py, mediapipe_oracle.py); VisionTasks' Swift version is
Sources/VisionTasks/Preprocessing/PerspectiveTransform.swift (docs/pipelines.md §2.2).
"""
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


def lapack_perspective_inverse(pts, dst):
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
