# shellcheck shell=bash
# shellcheck disable=SC2034  # bin, stowage, scratch and volume are the caller's
# Sourced by the scripts that time the `stowage` command: the tools they need, release builds (into
# Benchmarks/.build, never the project's own .build, where someone may be building), a scratch folder
# and the arithmetic of the reports. Expects `here` (this folder). `stowage` is built through this
# package, which depends on the parent by path: the same sources as the parent's own release build.
export LC_ALL=C  # the same sorting and number formats whatever the caller's locale
started=$SECONDS

# require_tools TOOL...: exits naming the first missing tool; installs GNU time (/usr/bin/time, for
# peak memory) with apt-get when it is missing.
require_tools() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "error: $tool is needed (apt-get install $tool)" >&2; exit 1; }
    done
    [[ -x /usr/bin/time ]] || apt-get install -y -qq time >/dev/null || { echo "error: apt-get install time failed" >&2; exit 1; }
}

# scratch_folder NAME [KEEP]: makes `scratch` (Benchmarks/.scratch-NAME-<random>, gitignored) and sets
# `volume` to a folder in it; on exit unmounts `volume` if mounted and removes `scratch` unless KEEP is 1.
scratch_folder() {
    scratch="$(mktemp -d "$here/.scratch-$1-XXXXXXXX")"
    volume="$scratch/volume"
    keep="${2:-0}"
    trap 'if mountpoint -q "$volume" 2>/dev/null; then umount "$volume" || umount -l "$volume"; fi
          if ((keep)); then echo "Kept $scratch"; else rm -rf --one-file-system "$scratch"; fi' EXIT
    trap 'exit 130' INT TERM
}

# build PRODUCT...: release builds of the products and of stowage (unless $STOWAGE_BIN names a binary),
# or exits with the build's log; sets `bin` (the products' folder) and `stowage`. stowage is linked as
# `make install` links it: with Swift's standard library and Foundation inside (--static-swift-stdlib),
# and on Linux the C++ standard library (Scripts/static-cxx-flags.sh); so is ParserHello, its peer.
build() {
    local product products=("$@") static
    [[ -n "${STOWAGE_BIN:-}" ]] || products+=(stowage)
    echo "Building ${products[*]} (release)..."
    for product in "${products[@]}"; do
        static=()
        # shellcheck disable=SC2207  # the flags are words
        [[ "$product" != stowage && "$product" != ParserHello ]] ||
            static=(--static-swift-stdlib $(bash "$here/../Scripts/static-cxx-flags.sh" "$here/.build/static-cxx"))
        swift build -c release --package-path "$here" --product "$product" "${static[@]}" >"$scratch/build-$product.log" 2>&1 ||
            { cat "$scratch/build-$product.log" >&2; echo "error: building $product failed" >&2; exit 1; }
    done
    bin="$(swift build -c release --package-path "$here" --show-bin-path)"
    stowage="${STOWAGE_BIN:-$bin/stowage}"
}

# mount_ext4_volume SIZE_GIB: makes an ext4 image of SIZE_GIB in `scratch` (mkfs.ext4 defaults, no
# discard) and mounts it on `volume` through a loop device, or exits saying why.
mount_ext4_volume() {
    mkdir -p "$volume"
    truncate -s "$1G" "$scratch/volume.img"
    mkfs.ext4 -q -F -E nodiscard "$scratch/volume.img"
    mount -o loop "$scratch/volume.img" "$volume" ||
        { echo "error: mounting an ext4 image failed (this benchmark needs root and loop devices)" >&2; exit 1; }
}

# The arithmetic of the reports (bash has integers only): calc FORMAT EXPRESSION; verdict CONDITION
# (PASS or MISS); megabytes KIB; result FILE NAME FIELD, a field (.mean, .stddev, ...) of the named
# command in a hyperfine JSON export; q WORD, the word quoted for sh -c.
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
verdict() { awk "BEGIN { exit !($1) }" && echo PASS || echo MISS; }
megabytes() { calc '%.1f MB' "$1 / 1024"; }
result() { jq -r --arg name "$2" ".results[] | select(.command == \$name) | $3" "$1"; }
q() { printf '%q' "$1"; }
machine() { echo "$(nproc) cores, $(uname -sr); $(df -T "$1" | awk 'NR == 2 { print $2 " (" $1 ")" }')"; }
