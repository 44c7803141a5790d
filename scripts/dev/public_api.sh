#!/usr/bin/env bash
# Lists the public symbols of the library modules and those without a `///` doc comment, read
# from the compiled modules (swift-symbolgraph-extract), so nothing in the source is guessed.
#
#   scripts/dev/public_api.sh [OUT_DIR]      (after a release build: swift build -c release)
#
# Prints per module: public symbols, how many have no doc comment of their own, and lists
# those. Members that satisfy a protocol requirement (description, encode(to:), ==, ...)
# inherit the protocol's documentation and are counted separately.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-/tmp/vision-tasks-public-api}"
build=".build/$(uname -m)-unknown-linux-gnu/release"
[ -d "$build/Modules" ] || build=".build/release"
mkdir -p "$out"
flags=()
for map in .build/checkouts/ZIPFoundation/Sources/CZLib/module.modulemap "$build/CKernels.build/module.modulemap" \
    Sources/CFFmpeg/module.modulemap Sources/CJPEG/module.modulemap Sources/CPNG/module.modulemap; do
    [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
for module in VisionTasks VisionTasksModelInstaller LiteInterpreter MediaIO VisionTasksMLKit VisionTasksAppleVision VisionTasksAppleVisionMedia; do
    swift symbolgraph-extract -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" \
        -I "$build/Modules" -I Sources/CKernels/include "${flags[@]}" \
        -output-dir "$out" -minimum-access-level public
done
python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
for module in ["VisionTasks", "VisionTasksModelInstaller", "LiteInterpreter", "MediaIO", "VisionTasksMLKit", "VisionTasksAppleVision", "VisionTasksAppleVisionMedia"]:
    graph = json.load(open(os.path.join(out, f"{module}.symbols.json")))
    # Declared here: not members that protocol extensions or synthesised conformances supply.
    symbols = [s for s in graph["symbols"]
               if s.get("accessLevel") == "public" and "::SYNTHESIZED::" not in s["identifier"]["precise"]]
    undocumented, inherited = [], 0
    for s in symbols:
        doc = s.get("docComment")
        if doc and doc.get("lines"):
            # A member that implements another module's protocol requirement without its own
            # comment shows that requirement's documentation.
            if doc.get("module") not in (None, module):
                inherited += 1
            continue
        name = ".".join(s["pathComponents"])
        where = s.get("location", {}).get("uri", "").split("/Sources/")[-1]
        line = s.get("location", {}).get("position", {}).get("line", -1) + 1
        undocumented.append(f"  {s['kind']['displayName']:18} {name}  ({where}:{line})")
    kinds = {}
    for s in symbols:
        kinds[s["kind"]["displayName"]] = kinds.get(s["kind"]["displayName"], 0) + 1
    summary = ", ".join(f"{v} {k}" for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    print(f"{module}: {len(symbols)} public symbols declared ({summary}); "
          f"{len(undocumented)} without a doc comment, {inherited} showing a protocol's documentation")
    for entry in sorted(undocumented):
        print(entry)
PY
