# shellcheck shell=bash
# Its inputs (here, scratch) and outputs (bin, stowage, stowage_missing, scratch, volume) are the caller's variables.
# shellcheck disable=SC2154,SC2034
# Sourced by the benchmark scripts: the tools they need, and release builds of what they run,
# never touching the project's own .build. Expects `here` (this folder) to be set, and
# `scratch` (the run's folder) before building.
#
# `stowage` is built through this package, which depends on the parent by path: the same
# sources as `swift build -c release --package-path .. --product stowage`, but into
# Benchmarks/.build, so that a run never touches the parent's .build (where someone may be
# building at the same time).

# require_tools TOOL...: exits with a message naming the first missing tool; installs GNU time
# (/usr/bin/time, for peak memory) with apt-get when it is missing.
require_tools() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "error: $tool is needed (apt-get install $tool)" >&2; exit 1; }
    done
    if [[ ! -x /usr/bin/time ]]; then
        echo "GNU time (/usr/bin/time) is missing: installing it with apt-get, for peak memory"
        apt-get install -y -qq time >/dev/null || { echo "error: apt-get install time failed" >&2; exit 1; }
    fi
}

# build_products PRODUCT...: builds each product in release or exits with its log; sets `bin`.
build_products() {
    echo "Building $* (release)..."
    local product
    for product in "$@"; do
        if ! swift build -c release --package-path "$here" --product "$product" >"$scratch/build-$product.log" 2>&1; then
            cat "$scratch/build-$product.log" >&2
            echo "error: building $product failed" >&2
            exit 1
        fi
    done
    bin="$(swift build -c release --package-path "$here" --show-bin-path)"
}

# build_stowage SUBCOMMAND: sets `stowage` to the binary ($STOWAGE_BIN, or a release build), or
# leaves it empty and sets `stowage_missing` to why `stowage SUBCOMMAND` is not available.
# Call after build_products (it uses `bin`).
build_stowage() {
    stowage=""
    stowage_missing=""
    if [[ -n "${STOWAGE_BIN:-}" ]]; then
        stowage="$STOWAGE_BIN"
        echo "Using STOWAGE_BIN=$stowage"
    else
        echo "Building stowage (release)..."
        if swift build -c release --package-path "$here" --product stowage >"$scratch/build-stowage.log" 2>&1; then
            stowage="$bin/stowage"
        else
            # An older binary may still be in .build: it is not used.
            stowage_missing="stowage $1 not available (the stowage build failed: $(grep -m1 -E 'error:' "$scratch/build-stowage.log" || tail -n1 "$scratch/build-stowage.log"))"
        fi
    fi
}

# require_stowage SUBCOMMAND: build_stowage, and end the script with its reason when stowage is
# not available (for benchmarks that measure nothing without it).
require_stowage() {
    build_stowage "$1"
    if [[ -z "$stowage" ]]; then
        echo "error: $stowage_missing" >&2
        exit 1
    fi
}

# ext4_scratch NAME: makes `scratch` (Benchmarks/.scratch-NAME-<random>, gitignored) and sets
# `volume` to a folder in it; on any exit, unmounts `volume` if mounted and removes `scratch`.
ext4_scratch() {
    scratch="$(mktemp -d "$here/.scratch-$1-XXXXXXXX")"
    volume="$scratch/volume"
    trap 'if mountpoint -q "$volume" 2>/dev/null; then umount "$volume" || umount -l "$volume"; fi; rm -rf --one-file-system "$scratch"' EXIT
    trap 'exit 130' INT TERM
}

# mount_ext4_volume SIZE_GIB: makes an ext4 image of SIZE_GIB in `scratch` (mkfs.ext4 defaults,
# no discard) and mounts it on `volume` through a loop device, or exits saying why.
mount_ext4_volume() {
    mkdir -p "$volume"
    truncate -s "$1G" "$scratch/volume.img"
    mkfs.ext4 -q -F -E nodiscard "$scratch/volume.img"
    if ! mount -o loop "$scratch/volume.img" "$volume"; then
        echo "error: mounting an ext4 image failed (this benchmark needs root and loop devices)" >&2
        exit 1
    fi
}
