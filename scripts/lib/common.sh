# Shared by scripts/vision-tasks and scripts/test: installs what the project needs, idempotently.
# Sourced, not run. Messages go to stderr so that the tool's own output stays clean on stdout.

VT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# One set of build flags for the tool and the tests, so that `swift test` reuses the tool's build.
VT_BUILD_FLAGS=(-c release -Xswiftc -enable-testing)
# The two packages are the library ($VT_ROOT) and the apps ($VT_ROOT/Apps: the tool, the server,
# the benchmark), which depends on the library by path. Each builds in its own default folder
# (.build, Apps/.build): SwiftPM keeps one root package's checkouts in a build folder and removes
# those another root package does not need, so the two cannot share one. The tool is
# Apps/.build/release/vision-tasks.

# The packages (identities, as `swift package show-dependencies` names them) that a package
# depending on the library may resolve besides the library itself: scripts/check-layering checks
# the library's manifest against them, scripts/check-consumer what Tests/Consumer resolves.
VT_LIBRARY_PACKAGES=(zipfoundation swift-docc-plugin swift-docc-symbolkit)

vt_log() { printf '==> %s\n' "$*" >&2; }
vt_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Seconds since the epoch, with fractions when bash provides them.
vt_now() { printf '%s' "${EPOCHREALTIME:-$SECONDS}"; }
vt_elapsed() { awk -v a="$1" -v b="$(vt_now)" 'BEGIN { printf "%.1f s", b - a }'; }

vt_require_swift() {
    command -v swift >/dev/null 2>&1 || vt_die "Swift is not installed: see https://www.swift.org/install/linux/ (Swift 6.0 or newer)"
}

# Runs a command as root: directly when we are root, with sudo otherwise.
vt_as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        vt_die "need root to run: $* (run as root or install sudo)"
    fi
}

vt_deb_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

vt_python() { printf '%s' "${VISION_TASKS_PYTHON:-python3}"; }

# The virtual environment with Google's MediaPipe and LiteRT, for the tests that load our bundles in
# them (MediaPipeBundleCompatibilityTests) and for vision-tasks-bench's comparisons; both find it
# here when VISION_TASKS_PYTHON is not set.
VT_MEDIAPIPE_VENV="$HOME/.cache/vision-tasks/mediapipe-venv"
VT_MEDIAPIPE_PACKAGES=(mediapipe==1.2.2 ai-edge-litert==2.3.0)

# The system packages: pkg-config, the JPEG, PNG and FFmpeg development files (libavdevice for V4L2
# cameras), pip (for the model installer) and git (for SwiftPM). Nothing is installed when they are
# all there.
vt_ensure_system_packages() {
    local modules=(libjpeg libpng libavformat libavcodec libswscale libavutil libavdevice)
    local libraries_ok=1 pip_ok=1 git_ok=1
    # SwiftPM fetches the package's dependencies with git.
    command -v git >/dev/null 2>&1 || git_ok=0
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "${modules[@]}" 2>/dev/null; then
        libraries_ok=0
    fi
    if ! "$(vt_python)" -m pip --version >/dev/null 2>&1; then
        pip_ok=0
    fi
    [ "$libraries_ok" -eq 1 ] && [ "$pip_ok" -eq 1 ] && [ "$git_ok" -eq 1 ] && return 0

    if ! command -v apt-get >/dev/null 2>&1; then
        [ "$git_ok" -eq 1 ] || vt_die "git is not installed (SwiftPM needs it to fetch dependencies)"
        [ "$libraries_ok" -eq 1 ] || vt_die "missing development libraries (pkg-config modules: ${modules[*]}); install pkg-config, libjpeg-turbo, libpng and FFmpeg (with libavdevice) with their headers"
        vt_die "$(vt_python) has no pip; install pip or set VISION_TASKS_PYTHON to a Python that has it"
    fi

    local wanted=(pkg-config libjpeg62-turbo-dev libpng-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libavdevice-dev)
    [ "$pip_ok" -eq 1 ] || wanted+=(python3-pip)
    [ "$git_ok" -eq 1 ] || wanted+=(git ca-certificates)
    local missing=() package
    for package in "${wanted[@]}"; do
        vt_deb_installed "$package" || missing+=("$package")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        [ "$libraries_ok" -eq 1 ] || vt_die "the Debian packages are installed but pkg-config does not find ${modules[*]}"
        vt_die "python3-pip is installed but '$(vt_python) -m pip' fails; set VISION_TASKS_PYTHON to a Python that has pip"
    fi
    vt_log "installing system packages: ${missing[*]}"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    # Ubuntu names the JPEG package differently.
    if [[ " ${missing[*]} " == *" libjpeg62-turbo-dev "* ]] && ! apt-cache show libjpeg62-turbo-dev >/dev/null 2>&1; then
        missing=("${missing[@]/libjpeg62-turbo-dev/libjpeg-dev}")
    fi
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# qemu-user and the AArch64 cross compiler, for scripts/check-neon (Debian/Ubuntu with apt).
vt_ensure_neon_tools() {
    command -v qemu-aarch64 >/dev/null 2>&1 && command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && return 0
    command -v apt-get >/dev/null 2>&1 || vt_die "scripts/check-neon needs qemu-aarch64 and aarch64-linux-gnu-gcc (Debian: qemu-user gcc-aarch64-linux-gnu)"
    local wanted=(qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross) missing=() package
    for package in "${wanted[@]}"; do
        vt_deb_installed "$package" || missing+=("$package")
    done
    [ "${#missing[@]}" -eq 0 ] && vt_die "qemu-user and gcc-aarch64-linux-gnu are installed but qemu-aarch64 or aarch64-linux-gnu-gcc is not on PATH"
    vt_log "installing the NEON check's tools: ${missing[*]}"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Headless Chromium for the browser test of the demo page (BrowserDemoTests); Debian/Ubuntu with apt.
vt_ensure_chromium() {
    local name
    for name in chromium chromium-browser google-chrome; do
        command -v "$name" >/dev/null 2>&1 && return 0
    done
    command -v apt-get >/dev/null 2>&1 || vt_die "the browser test needs Chromium (Debian: chromium); install it or skip BrowserDemoTests"
    vt_log "installing Chromium for the browser test"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
}

# The ffmpeg program, which the live-source tests (LiveSourceTests, LiveCommandTests) start as an
# HTTP MJPEG and a UDP MPEG-TS server on 127.0.0.1; Debian/Ubuntu with apt.
vt_ensure_ffmpeg() {
    command -v ffmpeg >/dev/null 2>&1 && return 0
    command -v apt-get >/dev/null 2>&1 || vt_die "the live-source tests need the ffmpeg program (Debian: ffmpeg); install it"
    vt_log "installing the ffmpeg program for the live-source tests"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >&2
}

# A TCP port on 127.0.0.1 that is free now (the kernel's pick), for a server a script starts.
vt_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The frames of the video $1 as JPEGs 640 pixels wide (quality 4) in the folder $2, named
# 0001.jpg, 0002.jpg, ...: what the load scripts stream to a server as a camera's frames.
vt_video_frames() {
    ffmpeg -loglevel error -i "$1" -vf "scale=640:-2" -q:v 4 "$2/%04d.jpg"
}

# HAProxy, the load balancer in front of two `vision-tasks serve` replicas in ReplicaBalancingTests
# (health checks on /readyz, SIGTERM and SIGKILL to a replica); Debian/Ubuntu with apt.
vt_ensure_haproxy() {
    command -v haproxy >/dev/null 2>&1 && return 0
    [ -x /usr/sbin/haproxy ] && return 0
    command -v apt-get >/dev/null 2>&1 || vt_die "the replica tests need HAProxy (Debian: haproxy); install it"
    vt_log "installing HAProxy for the replica tests"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >&2
}

# Installs nginx, openssl and certutil for the HTTPS tests (TLSProxyBrowserTests: nginx terminates
# TLS in front of the server with a certificate openssl makes; both HTTPS browser tests trust their
# certificate in a throwaway NSS database with certutil). Does nothing when all are there.
vt_ensure_nginx() {
    { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } && command -v openssl >/dev/null 2>&1 \
        && command -v certutil >/dev/null 2>&1 && return 0
    command -v apt-get >/dev/null 2>&1 \
        || vt_die "the HTTPS tests need nginx, openssl and certutil (Debian: nginx openssl libnss3-tools); install them"
    vt_log "installing nginx, openssl and certutil for the HTTPS tests"
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx openssl libnss3-tools >&2
}

# Makes a Python virtual environment in folder $1 unless one is there (python3-venv from apt when
# Python has no venv module). Returns non-zero, with a message, when it cannot.
vt_make_venv() {
    [ -x "$1/bin/python" ] && return 0
    if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
        vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        vt_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >&2
    fi
    python3 -m venv "$1" >&2 || { vt_log "cannot make a Python virtual environment (Debian: python3-venv)"; return 1; }
}

# Installs VT_MEDIAPIPE_PACKAGES into VT_MEDIAPIPE_VENV (with pip, from PyPI; python3-venv from apt
# when Python has no venv module). Does nothing when they are there in these versions. Returns
# non-zero, with a message, when the install fails: the tests that need them then skip (outside CI).
vt_ensure_mediapipe_venv() {
    local python="$VT_MEDIAPIPE_VENV/bin/python" check
    check='from importlib.metadata import version as v; import sys; sys.exit(0 if [v("mediapipe"), v("ai-edge-litert")] == ["1.2.2", "2.3.0"] else 1)'
    [ -x "$python" ] && "$python" -c "$check" 2>/dev/null && return 0
    vt_log "installing ${VT_MEDIAPIPE_PACKAGES[*]} into $VT_MEDIAPIPE_VENV (for the MediaPipe compatibility tests)"
    vt_make_venv "$VT_MEDIAPIPE_VENV" || return 1
    "$python" -m pip install -q --disable-pip-version-check "${VT_MEDIAPIPE_PACKAGES[@]}" >&2 \
        || { vt_log "pip could not install ${VT_MEDIAPIPE_PACKAGES[*]}"; return 1; }
}

# schemathesis (PyPI), which OpenAPITests runs against a live server from docs/openapi.json, in a
# virtual environment of its own (python3-venv from apt when Python has no venv module). Does nothing
# when this version is there. Returns non-zero, with a message, when the install fails: the test then
# skips (outside CI). Tests/TestSupport/Schemathesis.swift names the same place and version.
VT_SCHEMATHESIS_VENV="$HOME/.cache/vision-tasks/schemathesis-venv"
VT_SCHEMATHESIS_VERSION=4.32.5
vt_ensure_schemathesis_venv() {
    local program="$VT_SCHEMATHESIS_VENV/bin/schemathesis"
    [ -x "$program" ] && "$program" --version 2>/dev/null | grep -qx "schemathesis, version $VT_SCHEMATHESIS_VERSION" && return 0
    vt_log "installing schemathesis $VT_SCHEMATHESIS_VERSION (pip) into $VT_SCHEMATHESIS_VENV (for OpenAPITests)"
    vt_make_venv "$VT_SCHEMATHESIS_VENV" || return 1
    "$VT_SCHEMATHESIS_VENV/bin/python" -m pip install -q --disable-pip-version-check "schemathesis==$VT_SCHEMATHESIS_VERSION" >&2 \
        || { vt_log "pip could not install schemathesis==$VT_SCHEMATHESIS_VERSION"; return 1; }
}

# Builds the apps (and the library modules they use), not the tests, in release, with the flags the
# tests use.
vt_build() {
    # Said only before a first build (no tool built yet); later runs are no-op or incremental builds.
    if [ ! -x "$VT_ROOT/Apps/.build/release/vision-tasks" ]; then
        vt_log "building the tool, the server and the benchmark (swift build --package-path Apps ${VT_BUILD_FLAGS[*]}); the first build takes a few minutes"
    fi
    swift build --package-path "$VT_ROOT/Apps" "${VT_BUILD_FLAGS[@]}" >&2
}

# Builds both packages' tests (and everything they test).
vt_build_tests() {
    local package
    for package in "$VT_ROOT" "$VT_ROOT/Apps"; do
        swift build --package-path "$package" "${VT_BUILD_FLAGS[@]}" --build-tests >&2
    done
}

# Runs `swift test` with the build flags and the given arguments in the library package, then in the
# apps package, then, when tests were skipped (XCTest counts them as passed), says loudly how many
# and why. Returns the first failing run's status (0 when both pass).
vt_run_tests() {
    local log status run_status skipped package
    log="$(mktemp)"
    status=0
    set +e
    for package in "$VT_ROOT" "$VT_ROOT/Apps"; do
        # XCTest only: without --disable-swift-testing the run would end on Swift Testing's "0 tests" line.
        swift test --package-path "$package" "${VT_BUILD_FLAGS[@]}" --disable-swift-testing "$@" 2>&1 | tee -a "$log"
        run_status=${PIPESTATUS[0]}
        [ "$status" -ne 0 ] || status=$run_status
    done
    set -e
    skipped=$(grep -c "^Test Case '.*' skipped" "$log" || true)
    if [ "$skipped" -gt 0 ]; then
        vt_log "WARNING: $skipped test(s) were SKIPPED, not run. Reasons (count, message):"
        grep -o "Test skipped - .*" "$log" | sed -e 's/^Test skipped - //' -e 's/: [^ ]*$//' | sort | uniq -c | sort -rn | head -5 >&2
        vt_log "skipped tests are not failures here; under CI=true (.ci/run) missing test data (../shared/testdata or \$VISION_TASKS_TESTDATA) fails them"
    fi
    rm -f "$log"
    return "$status"
}

# Compiles a C program of scripts/dev against the release build's kernels (built first, with the flags
# scripts/test uses, so that nothing is rebuilt): vt_compile_against_kernels SOURCE OUTPUT.
vt_compile_against_kernels() {
    local objects kernels
    swift build --package-path "$VT_ROOT" "${VT_BUILD_FLAGS[@]}" --target CKernels >&2
    objects="$(swift build --package-path "$VT_ROOT" "${VT_BUILD_FLAGS[@]}" --show-bin-path)/CKernels.build"
    # Only the objects of sources that exist: SwiftPM leaves a removed file's object behind.
    local object
    kernels=()
    while IFS= read -r object; do
        local source="${object#"$objects"/}"
        [ -f "$VT_ROOT/Sources/CKernels/${source%.o}" ] && kernels+=("$object")
    done < <(find "$objects" -name '*.o' | sort)
    cc -O2 -I"$VT_ROOT/Sources/CKernels/include" -o "$2" "$1" "${kernels[@]}" -lpthread -lm
}

# Compiles a C tool against the release kernels (vt_compile_against_kernels) into a temporary
# directory and runs it with the remaining arguments: vt_run_against_kernels SOURCE [ARGUMENT...].
vt_run_against_kernels() {
    local source="$1" out status
    shift
    out="$(mktemp -d)"
    status=0
    vt_compile_against_kernels "$source" "$out/tool" && "$out/tool" "$@" || status=$?
    rm -rf "$out"
    return "$status"
}

# The built tool (asks SwiftPM once, then remembers).
VT_TOOL=""
vt_tool() {
    if [ -z "$VT_TOOL" ]; then
        VT_TOOL="$(swift build --package-path "$VT_ROOT/Apps" "${VT_BUILD_FLAGS[@]}" --show-bin-path)/vision-tasks"
    fi
    printf '%s' "$VT_TOOL"
}

# Installs the models (does nothing when they are installed and intact).
vt_install_models() {
    vt_tool >/dev/null
    "$VT_TOOL" models install >&2
}
