#!/usr/bin/env bash
# Type-checks Stowage's code for Apple platforms, on Linux, with no Apple SDK.
#
# For each platform the package declares (macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1) it
# assembles a stand-in SDK and runs the Swift compiler's type checker with that platform's target
# triple and deployment target, so `#if os(...)`, `canImport(Darwin)` and availability
# (`@available`) are decided exactly as in an Xcode build:
#   - the Swift standard library, _Concurrency and _StringProcessing are this toolchain's own,
#     compiled from their textual interfaces for the Apple target (their availability annotations
#     are Apple's);
#   - Darwin, Foundation and Dispatch are stand-ins that declare exactly the Apple surface Stowage
#     uses, written from Apple's headers and documentation (DarwinCheck/Surface; every declaration
#     names its source), with each symbol's availability per platform.
# The whole `Stowage` library is type-checked (with warnings as errors), and the C shim is checked
# with clang for the same target against the same headers.
#
# Then it checks itself: it breaks the code on purpose in a few ways (a wrong Darwin signature, an
# undeclared symbol, an API a platform lacks, an API newer than the deployment target) and fails
# unless every breakage is caught.
#
# What this proves, and what not: see README, "What is verified where".
#
# Usage: DarwinCheck/check.sh [platform...]   (default: all five; the self-test needs iOS)
# Environment: DARWIN_CHECK_BUILD (default .build-darwincheck), DARWIN_CHECK_JOBS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
surface=$root/DarwinCheck/Surface
out=${DARWIN_CHECK_BUILD:-$root/.build-darwincheck}
jobs=${DARWIN_CHECK_JOBS:-2}

swiftc=$(command -v swiftc)
resources=$("$swiftc" -print-target-info | sed -n 's/.*"runtimeResourcePath": "\(.*\)".*/\1/p')
host_modules=$resources/linux
compiler_version=$("$swiftc" --version 2>&1 | head -1)
clang=$(dirname "$(readlink -f "$swiftc")")/clang

# name, target triple (with the deployment target), module triple. x86_64 simulator triples:
# the toolchain's standard-library interface is the x86_64 Linux one, which declares Float80.
platforms_all="macOS:x86_64-apple-macos13.0:x86_64-apple-macos
iOS:x86_64-apple-ios16.0-simulator:x86_64-apple-ios-simulator
tvOS:x86_64-apple-tvos16.0-simulator:x86_64-apple-tvos-simulator
watchOS:x86_64-apple-watchos9.0-simulator:x86_64-apple-watchos-simulator
visionOS:x86_64-apple-xros1.0-simulator:x86_64-apple-xros-simulator"

# Writes stdin to $1 only when it differs, so the module cache stays valid between runs.
write_if_changed() {
    local temporary
    temporary=$(mktemp)
    cat > "$temporary"
    if cmp -s "$temporary" "$1"; then rm -f "$temporary"; else mkdir -p "$(dirname "$1")"; mv "$temporary" "$1"; fi
}

# Assembles the stand-in SDK for one platform.
make_sdk() {
    local name=$1 target=$2 triple=$3 sdk=$4
    mkdir -p "$sdk/usr/include/sys"
    for header in $(cd "$surface/include" && find . -type f | sort); do
        write_if_changed "$sdk/usr/include/$header" < "$surface/include/$header"
    done
    # The toolchain's own libraries, for the Apple target. Three edits to their Linux interfaces:
    # the target; `@backDeployed` attributes removed (they only change code generation, and the
    # Linux interface omits the bodies they require); Observation's `import Glibc` as Darwin. Availability checking is off inside
    # these modules only (the Linux interface lacks a few annotations Apple's carries).
    for module in Swift _Concurrency _RegexParser _StringProcessing SwiftOnoneSupport Observation; do
        sed -e "s/-target x86_64-unknown-linux-gnu/-target $target -disable-availability-checking/" \
            -e '/^ *@backDeployed(.*)$/d' -e 's/^import Glibc$/import Darwin/' \
            "$host_modules/$module.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface" \
            | write_if_changed "$sdk/usr/lib/swift/$module.swiftmodule/$triple.swiftinterface"
    done
    # Every stand-in module of Surface/, in the SDKs of the platforms its `// platforms:` line names
    # (all five without one), as the real SDKs have UIKit for iOS, tvOS and visionOS only.
    for interface in "$surface"/*.swiftinterface; do
        module=$(basename "$interface" .swiftinterface)
        only=$(sed -n 's|^// platforms: *||p' "$interface")
        if [ -n "$only" ] && ! echo " $only " | grep -q " $name "; then continue; fi
        {
            echo "// swift-interface-format-version: 1.0"
            echo "// swift-compiler-version: $compiler_version"
            echo "// swift-module-flags: -target $target -enable-library-evolution -swift-version 5 -module-name $module"
            cat "$interface"
        } | write_if_changed "$sdk/usr/lib/swift/$module.swiftmodule/$triple.swiftinterface"
    done
    # The SDK's settings: its version, and (as Apple's visionOS SDK has) the map from iOS versions
    # to visionOS versions, through which an availability given for iOS alone applies to visionOS.
    printf '{"CanonicalName": "stowage-standin", "Version": "%s", "MaximumDeploymentTarget": "99.99.99", %s}\n' \
        "$(echo "$target" | sed 's/.*apple-[a-z]*\([0-9.]*\).*/\1/')" \
        '"VersionMap": {"iOS_xrOS": {"17.0": "1.0", "18.0": "2.0"}, "xrOS_iOS": {"1.0": "17.0", "2.0": "18.0"}}' \
        | write_if_changed "$sdk/SDKSettings.json"
}

# Type-checks the Stowage library (from the folder $4) for one platform.
typecheck_swift() {
    local name=$1 target=$2 sdk=$3 sources=$4
    # As SwiftPM makes it: every header of the include folder.
    printf 'module CStowageShims {\n    umbrella "%s"\n    export *\n}\n' "$sources/Sources/CStowageShims/include" \
        | write_if_changed "$out/$name/CStowageShims.modulemap"
    # shellcheck disable=SC2046
    "$swiftc" -typecheck -target "$target" -sdk "$sdk" -module-cache-path "$out/$name/cache" \
        -module-name Stowage -package-name stowage -swift-version 6 -parse-as-library -warnings-as-errors \
        -Xfrontend -disable-objc-interop \
        -Xcc -fmodule-map-file="$out/$name/CStowageShims.modulemap" \
        $(find "$sources/Sources/Stowage" -name '*.swift' | sort) 2>&1 \
        | grep -v "^warning: Could not read SDKSettings.json" || true
}

# Checks the C shim's files for one platform: clang, the Apple target, the stand-in headers.
check_c() {
    local target=$1 sdk=$2 sources=$3 file
    for file in "$sources"/Sources/CStowageShims/*.c; do
        "$clang" -fsyntax-only -target "$target" -isysroot "$sdk" -Werror -Wall \
            -I "$sources/Sources/CStowageShims/include" "$file" 2>&1
    done
}

check_platform() {
    local name=$1 target=$2 triple=$3
    local sdk=$out/$name/sdk log=$out/$name/log
    make_sdk "$name" "$target" "$triple" "$sdk"
    { typecheck_swift "$name" "$target" "$sdk" "$root"; check_c "$target" "$sdk" "$root"; } > "$log" 2>&1
    if grep -q "error:" "$log"; then
        echo "darwin-check: $name FAILED ($target)"
        grep -E "error:" "$log" | sort -u | head -40
        return 1
    fi
    echo "darwin-check: $name: the Stowage library and the C shim type-check ($target)"
}

# The check checks itself: each breakage must be rejected, with the expected message.
# file | text | replacement | platform | expected error
mutations='Sources/Stowage/Platform/ExtendedAttributes+Darwin.swift|fgetxattr(fd, $0, nil, 0, 0, 0)|fgetxattr(fd, $0, nil, 0)|iOS|missing arguments for parameters
Sources/Stowage/Platform/VolumeStatistics+Darwin.swift|var figures = statfs()|var figures = statfs(); var vfs = statvfs()|iOS|cannot find '"'"'statvfs'"'"' in scope
Sources/Stowage/Filling/FillEngine.swift|for path in ["/"] + ProtectedFolders.homeFolders() {|for path in ["/", FileManager.default.homeDirectoryForCurrentUser.path] {|iOS|is unavailable in iOS
Sources/CStowageShims/shims.c|return close_keeping_errno(fd, flistxattr(fd, list, size, 0));|return close_keeping_errno(fd, flistxattr(fd, list, size));|iOS|too few arguments
Sources/Stowage/Overview/StorageOverview.swift|@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)||iOS|is only available in iOS 17.0 or newer'

self_test() {
    local failures=0 line file text replacement platform expected target sdk copy log
    while IFS= read -r line; do
        IFS='|' read -r file text replacement platform expected <<< "$line"
        target=$(echo "$platforms_all" | grep "^$platform:" | cut -d: -f2)
        sdk=$out/$platform/sdk
        copy=$out/self-test
        rm -rf "$copy" && mkdir -p "$copy"
        cp -R "$root/Sources" "$copy/"
        if ! grep -qF -- "$text" "$copy/$file"; then
            echo "darwin-check: self-test: '$text' is no longer in $file; update the mutation"; failures=$((failures + 1)); continue
        fi
        content=$(cat "$copy/$file")
        printf '%s\n' "${content/"$text"/"$replacement"}" > "$copy/$file"
        log=$out/self-test.log
        { typecheck_swift "$platform" "$target" "$sdk" "$copy"; check_c "$target" "$sdk" "$copy"; } > "$log" 2>&1
        if grep -q -- "$expected" "$log"; then
            echo "darwin-check: self-test: rejected as it must be: $file: '$text' -> '$replacement' ($expected)"
        else
            echo "darwin-check: self-test FAILED: this breakage passed the check: $file: '$text' -> '$replacement'"
            grep "error:" "$log" | head -5
            failures=$((failures + 1))
        fi
    done <<< "$mutations"
    rm -rf "$out/self-test"
    return "$failures"
}

# Every C function and every top-level Swift declaration of the surface is in the audit table
# of the "Apple platforms" article, so nothing enters the surface unaudited.
check_audit_lists_surface() {
    local article=$root/Sources/Stowage/Stowage.docc/ApplePlatforms.md missing=0 name
    for name in $( (find "$surface/include" -name '*.h' -exec cat {} + \
                    | grep -vE '^\s*(#|//|typedef|struct [a-z_]+ \{)' \
                    | sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\([a-z_][a-z0-9_]*\)(.*/\1/p' | grep -v '^__'
                  cat "$surface"/*.swiftinterface \
                    | sed -n 's/^\(public\|open\) \(struct\|class\|enum\|protocol\|typealias\|func\|let\|var\) \([A-Za-z_][A-Za-z0-9_]*\).*/\3/p'
                 ) | sort -u); do
        if ! grep -qE "\`([A-Za-z_]+\.)?$name([\`(.:]|\$)" "$article"; then
            echo "darwin-check: '$name' is declared in DarwinCheck/Surface but not in the audit ($article)"
            missing=$((missing + 1))
        fi
    done
    return "$missing"
}

mkdir -p "$out"
check_audit_lists_surface || exit 1
selected=${*:-macOS iOS tvOS watchOS visionOS}
pids=()
names=()
status=0
for name in $selected; do
    line=$(echo "$platforms_all" | grep "^$name:") || { echo "darwin-check: unknown platform $name"; exit 64; }
    IFS=: read -r _ target triple <<< "$line"
    check_platform "$name" "$target" "$triple" &
    pids+=($!)
    names+=("$name")
    if [ ${#pids[@]} -ge "$jobs" ]; then
        wait "${pids[0]}" || status=1
        pids=("${pids[@]:1}")
    fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [ $status -ne 0 ]; then exit 1; fi
case " $selected " in *" iOS "*) self_test || exit 1 ;; esac
echo "darwin-check: passed"
