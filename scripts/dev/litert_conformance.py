#!/usr/bin/env python3
"""How far LiteRT's default CPU path (XNNPACK) is from the conformance references, in the
units ConformanceTests uses: max|out - ref| / (5e-4 * max(1, max|ref|)) per model, case and output.

The references (../shared/testdata/tensors) come from LiteRT's reference kernels; this shows how
much of the tolerance a production runtime itself uses, to read our own ratios against.

    /tmp/mpvenv/bin/python scripts/dev/litert_conformance.py [--threads N]

Needs numpy and ai_edge_litert. Models are read from $VISION_TASKS_MODELS or
~/.cache/vision-tasks/models (the installed files the manifest's sha256 values name).
"""
import argparse
import json
import os

import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.environ.get("VISION_TASKS_TESTDATA", os.path.join(os.path.dirname(ROOT), "shared", "testdata"))
MODELS = os.environ.get("VISION_TASKS_MODELS", os.path.expanduser("~/.cache/vision-tasks/models"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    tensors = os.path.join(TESTDATA, "tensors")
    with open(os.path.join(tensors, "manifest.json")) as f:
        manifest = json.load(f)
    worst = {}
    for case in manifest:
        interpreter = Interpreter(model_path=os.path.join(MODELS, case["model"]), num_threads=args.threads)
        interpreter.allocate_tensors()
        for detail, given in zip(interpreter.get_input_details(), case["inputs"]):
            data = np.fromfile(os.path.join(tensors, given["file"]), "<f4").reshape(given["shape"])
            interpreter.set_tensor(detail["index"], data)
        interpreter.invoke()
        by_name = {d["name"]: d["index"] for d in interpreter.get_output_details()}
        for i, expected in enumerate(case["outputs"]):
            reference = np.fromfile(os.path.join(tensors, expected["file"]), "<f4")
            index = by_name.get(expected["name"], interpreter.get_output_details()[i]["index"])
            out = interpreter.get_tensor(index).reshape(-1)
            allowed = 5e-4 * max(1.0, float(np.abs(reference).max()))
            ratio = float(np.abs(out - reference).max()) / allowed
            print(f"{case['model']} {case['case']} output {i} ({expected['name']}): ratio {ratio:.4f}")
            worst[case["model"]] = max(worst.get(case["model"], 0.0), ratio)
    print("worst ratio per model (LiteRT, XNNPACK):")
    for model, ratio in sorted(worst.items()):
        print(f"  {model}: {ratio:.4f}")


if __name__ == "__main__":
    main()
