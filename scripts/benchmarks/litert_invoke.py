#!/usr/bin/env python3
"""Times LiteRT (XNNPACK delegate, the default CPU path) invoking .tflite models.

Used by `vision-tasks-bench` to put LiteRT's time beside ours in the same run. Prints one JSON
object per model on stdout: {"model": path, "threads": n, "median_ms": t, "min_ms": fastest,
"runs": r, "peak_rss_mb": this Python process's peak resident memory so far, "version": the
ai-edge-litert package's version}.

With --rounds R > 1 (one model only) the runs are split into R blocks taken in turn with the
caller's own: after loading and warming up the model it prints {"ready": true}, then before
each block it waits for a line on stdin and afterwards prints {"block": i, "times_ms": [...]};
the summary line comes last. So both sides see the same machine load even when it drifts.
Exits with status 3 when ai_edge_litert is not installed.
"""
import argparse
import json
import resource
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("models", nargs="+", help=".tflite files")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1,
                        help="blocks of runs, each started by a line on stdin (one model only)")
    args = parser.parse_args()
    if args.rounds > 1 and len(args.models) != 1:
        parser.error("--rounds takes one model")
    rounds = max(1, min(args.rounds, args.runs))
    try:
        import numpy as np
        from ai_edge_litert.interpreter import Interpreter
    except ImportError as error:
        print(f"ai_edge_litert is not available: {error}", file=sys.stderr)
        return 3

    try:
        from importlib.metadata import version
        litert_version = version("ai-edge-litert")
    except Exception:  # the version is informative only
        litert_version = None
    rng = np.random.default_rng(0)
    for path in args.models:
        interpreter = Interpreter(model_path=path, num_threads=args.threads)
        interpreter.allocate_tensors()
        for detail in interpreter.get_input_details():
            data = rng.uniform(0.0, 1.0, size=detail["shape"]).astype(detail["dtype"])
            interpreter.set_tensor(detail["index"], data)
        for _ in range(args.warmup):
            interpreter.invoke()
        if rounds > 1:
            print(json.dumps({"ready": True}), flush=True)
        times = []
        for block in range(rounds):
            if rounds > 1 and not sys.stdin.readline():
                return 1  # the caller went away
            block_times = []
            for _ in range(block_runs(args.runs, rounds, block)):
                start = time.perf_counter()
                interpreter.invoke()
                block_times.append((time.perf_counter() - start) * 1000.0)
            times.extend(block_times)
            if rounds > 1:
                print(json.dumps({"block": block, "times_ms": block_times}), flush=True)
        # ru_maxrss is in KiB on Linux, bytes on macOS.
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        peak_mb = peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
        print(json.dumps({"model": path, "threads": args.threads,
                          "median_ms": statistics.median(times), "min_ms": min(times),
                          "runs": args.runs, "peak_rss_mb": peak_mb, "version": litert_version}), flush=True)
    return 0


def block_runs(runs: int, rounds: int, block: int) -> int:
    """Runs in block `block` of `rounds`: `runs` split as evenly as possible."""
    return runs // rounds + (1 if block < runs % rounds else 0)


if __name__ == "__main__":
    sys.exit(main())
