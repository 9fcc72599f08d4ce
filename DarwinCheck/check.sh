#!/usr/bin/env bash
# Compiles Stowage's code for Apple platforms, on Linux, with no Apple SDK, as far as Xcode's
# diagnostics go: through SIL generation and the mandatory SIL passes (definite initialisation,
# exclusivity, Swift 6 region-based isolation, missing returns), short of machine code.
#
# For each target of the matrix below (arm64 devices, the iOS simulator, Mac Catalyst, watchOS's
# arm64_32), in Debug (-D DEBUG) and Release, it assembles a stand-in SDK and compiles with that
# target triple and deployment target, so `#if os(...)`, `targetEnvironment(...)`,
# `canImport(...)` and availability (`@available`) are decided exactly as in an Xcode build:
#   - the Swift standard library, _Concurrency and _StringProcessing are this toolchain's own,
#     compiled from their textual interfaces for the Apple target (their availability annotations
#     are Apple's); so is Swift Testing's `Testing` (its Linux interface: the few declarations whose
#     availability differs by platform, exit tests and image attachments, are Linux's);
#   - Darwin, Foundation, Dispatch, UIKit and AppKit are stand-ins that declare exactly the Apple
#     surface Stowage uses, written from Apple's headers and documentation (DarwinCheck/Surface;
#     every declaration names its source), with each symbol's availability per platform.
# The whole `Stowage` library is compiled (with warnings as errors), and the C shim is checked
# with clang for the same target against the same headers. The `StowageTesting` library is
# compiled over it for every target too, against Swift Testing's `Testing` module compiled, like the
# standard library, from this toolchain's interface (StowageTesting does not import XCTest). The
# `stowage` command is compiled for macOS too, over swift-argument-parser's declarations
# (DARWIN_CHECK_COMMAND=0 leaves it out).
#
# Then it checks itself: it breaks the code or the stand-in on purpose in several ways (a wrong
# Darwin signature, an undeclared symbol, an API a platform lacks, an API newer than the
# deployment target, an opaque DIR, AppKit in Mac Catalyst, a variable used before it is set, an
# error under #if DEBUG, a StowageTesting trait that no longer conforms) and fails unless every
# breakage is caught.
#
# What this proves, and what not: see README, "What is verified where".
#
# Usage: DarwinCheck/check.sh [platform...]   (default: all seven, the iOS simulator only when a
#        source decides on targetEnvironment(simulator); the self-test needs iOS,
#        MacCatalyst and watchOS)
# Environment: DARWIN_CHECK_BUILD (default .build-darwincheck), DARWIN_CHECK_JOBS (default 2),
#              DARWIN_CHECK_COMMAND (default 1; 0: do not compile the command for macOS).
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

# The matrix: one line per SDK. name | target triple with the deployment target | module triple |
# the platform a stand-in's `// platforms:` line names. The longest first (macOS compiles the command
# too; watchOS's arm64_32 standard library is the slowest), so that two at a time end together.
#   - arm64 for every device (what ships; watchOS devices are arm64_32, with 32-bit Int and
#     pointers, so `#if arch(...)` and `_pointerBitWidth` are decided as on a watch) and Mac
#     Catalyst (`os(iOS)` code on a Mac: UIKit, and AppKit importable but unavailable).
#   - one simulator, iOS's: a simulator triple differs from its device only in
#     `targetEnvironment(simulator)`, which Stowage never tests; tvOS, watchOS and visionOS
#     simulators would each cost a standard-library build for nothing more.
#   - no x86_64 (Intel Macs, Intel simulators): Stowage has no `arch(...)` branch, and the only
#     x86_64 difference in the standard library is Float80.
platforms_all="macOS|arm64-apple-macos13.0|arm64-apple-macos|macOS
watchOS|arm64_32-apple-watchos9.0|arm64_32-apple-watchos|watchOS
iOS|arm64-apple-ios16.0|arm64-apple-ios|iOS
iOS-simulator|arm64-apple-ios16.0-simulator|arm64-apple-ios-simulator|iOS
MacCatalyst|arm64-apple-ios16.0-macabi|arm64-apple-ios-macabi|MacCatalyst
tvOS|arm64-apple-tvos16.0|arm64-apple-tvos|tvOS
visionOS|arm64-apple-xros1.0|arm64-apple-xros|visionOS"

# Writes stdin to $1 only when it differs, so the module cache stays valid between runs.
write_if_changed() {
    local temporary
    temporary=$(mktemp)
    cat > "$temporary"
    if cmp -s "$temporary" "$1"; then rm -f "$temporary"; else mkdir -p "$(dirname "$1")"; mv "$temporary" "$1"; fi
}

# The toolchain's standard-library interfaces are the x86_64 Linux ones. For any other
# architecture, what the Swift sources put under `#if arch(i386) || arch(x86_64)` goes: every
# declaration naming Float80, and the float-literal type and its adopters become the 64-bit ones
# (stdlib/public/core: FloatingPointTypes.swift.gyb, CTypes.swift, Policy.swift).
without_float80() {
    perl -e '
        my (@pending, $depth, $inside, $kept);
        while (my $line = <STDIN>) {
            $line =~ s/_MaxBuiltinFloatType = Builtin\.FPIEEE80/_MaxBuiltinFloatType = Builtin.FPIEEE64/;
            $line =~ s/CLongDouble = Swift\.Float80/CLongDouble = Swift.Double/;
            $line =~ s/_builtinFloatLiteral value: Builtin\.FPIEEE80\)/_builtinFloatLiteral value: Builtin.FPIEEE64)/;
            $line =~ s/self = Float16\(Float80\(value\)\)/self._value = Builtin.fptrunc_FPIEEE64_FPIEEE16(value)/;
            $line =~ s/Float\(Builtin\.fptrunc_FPIEEE80_FPIEEE32\(value\)\)/Float(Builtin.fptrunc_FPIEEE64_FPIEEE32(value))/;
            $line =~ s/self = Double\(Builtin\.fptrunc_FPIEEE80_FPIEEE64\(value\)\)/self = Double(value)/;
            if ($kept || $line =~ /^#if .*arch\(x86_64\)/) {    # decided by the compiler: kept
                $kept += ($line =~ /^#if/) - ($line =~ /^#endif/);
                print @pending, $line;
                @pending = ();
                next;
            }
            if ($inside) {    # inside a removed declaration: to its closing brace
                $depth += (() = $line =~ /\{/g) - (() = $line =~ /\}/g);
                $inside = 0 if $depth <= 0;
                next;
            }
            if ($line =~ /^\s*@[A-Za-z_]+(\(.*\))?\s*$/) { push @pending, $line; next; }  # attributes
            if ($line =~ /Float80/) {    # a declaration naming Float80, with its attributes
                @pending = ();
                $depth = (() = $line =~ /\{/g) - (() = $line =~ /\}/g);
                $inside = $depth > 0;
                next;
            }
            print @pending, $line;
            @pending = ();
        }
        print @pending;'
}

# Assembles the stand-in SDK for one platform.
make_sdk() {
    local name=$1 target=$2 triple=$3 family=$4 sdk=$5 module strip interface only
    mkdir -p "$sdk/usr/include/sys"
    for header in $(cd "$surface/include" && find . -type f | sort); do
        write_if_changed "$sdk/usr/include/$header" < "$surface/include/$header"
    done
    # The toolchain's own libraries, for the Apple target. Edits to their Linux interfaces: the
    # target; `@backDeployed` attributes removed (they only change code generation, and the
    # Linux interface omits the bodies they require); Observation's `import Glibc` as Darwin;
    # Float80 gone off x86_64. Availability checking is off inside these modules only (the
    # Linux interface lacks a few annotations Apple's carries).
    strip=cat
    case $target in x86_64-*) ;; *) strip=without_float80 ;; esac
    for module in Swift _Concurrency _RegexParser _StringProcessing SwiftOnoneSupport Observation Testing; do
        sed -e "s/-target x86_64-unknown-linux-gnu/-target $target -disable-availability-checking/" \
            -e '/^ *@backDeployed(.*)$/d' -e 's/^import Glibc$/import Darwin/' \
            "$host_modules/$module.swiftmodule/x86_64-unknown-linux-gnu.swiftinterface" \
            | $strip | write_if_changed "$sdk/usr/lib/swift/$module.swiftmodule/$triple.swiftinterface"
    done
    # Every stand-in module of Surface/, in the SDKs of the platforms its `// platforms:` line names
    # (all without one), as the real SDKs have UIKit for iOS, Mac Catalyst, tvOS, watchOS and
    # visionOS, and AppKit for macOS (and Mac Catalyst, where it can be imported but not used).
    for interface in "$surface"/*.swiftinterface; do
        module=$(basename "$interface" .swiftinterface)
        only=$(sed -n 's|^// platforms: *||p' "$interface")
        if [ -n "$only" ] && ! echo " $only " | grep -q " $family "; then continue; fi
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

# The configurations, as Xcode and `swift build` make them: Debug defines DEBUG and does not
# optimise; Release does not define DEBUG and optimises (whole module, as Xcode's Release does).
# The optimiser doubles a platform's time and adds few diagnostics of its own (the mandatory SIL
# passes run in both), so Release runs it on macOS, iOS and watchOS (arm64_32) only; on the other
# platforms Release compiles the same code (no DEBUG) through the mandatory passes, at -Onone.
optimised_release="macOS iOS watchOS"
config_flags() {
    case $1 in
        Debug) echo "-Onone -D DEBUG" ;;
        Release) if echo " $optimised_release " | grep -q " ${2:-} "; then echo "-O"; else echo "-Onone"; fi ;;
    esac
}

# Compiles Swift code for one platform and configuration as far as SIL, through the mandatory
# passes (definite initialisation, exclusivity, region-based isolation, missing returns) and, in
# Release, the optimiser: every diagnostic an Xcode build gives, short of machine code.
# $1 name, $2 target, $3 sdk, $4 configuration, $5 module name, $6 folder of modules it imports,
# $7 module to write (or ""), then the flags and files.
compile_swift() {
    local name=$1 target=$2 sdk=$3 config=$4 module=$5 modules=$6 emit=$7
    shift 7
    # shellcheck disable=SC2046
    "$swiftc" -emit-sil -o /dev/null -wmo -target "$target" -sdk "$sdk" -module-cache-path "$out/$name/cache" \
        -module-name "$module" $(config_flags "$config" "$name") -parse-as-library -warnings-as-errors \
        -Xfrontend -disable-objc-interop -I "$modules" \
        ${emit:+-emit-module -emit-module-path "$emit" -no-emit-module-separately-wmo} \
        "$@" 2>&1 \
        | grep -v "^warning: Could not read SDKSettings.json" || true
}

# Compiles the Stowage library (from the folder $5) for one platform and configuration, writing
# its module to $6 when given (for StowageTesting and the command): first its platform target,
# StowagePlatform (the only Swift code that imports libc and the C shim), whose module the
# library imports, then the library over it.
compile_library() {
    local name=$1 target=$2 sdk=$3 config=$4 sources=$5 emit=${6:-}
    local platform_modules=$out/$name/modules-$(basename "$sources")-$config
    mkdir -p "$platform_modules"
    # As SwiftPM makes it: every header of the include folder.
    printf 'module CStowageShims {\n    umbrella "%s"\n    export *\n}\n' "$sources/Sources/CStowageShims/include" \
        | write_if_changed "$out/$name/modules-$(basename "$sources")/CStowageShims.modulemap"
    # shellcheck disable=SC2046
    compile_swift "$name" "$target" "$sdk" "$config" StowagePlatform "$platform_modules" "$platform_modules/StowagePlatform.swiftmodule" \
        -package-name stowage -swift-version 6 \
        -Xcc -fmodule-map-file="$out/$name/modules-$(basename "$sources")/CStowageShims.modulemap" \
        $(find "$sources/Sources/StowagePlatform" -name '*.swift' | sort)
    # What imports the library imports its platform too (re-exported).
    if [ -n "$emit" ]; then cp -p "$platform_modules"/StowagePlatform.* "$(dirname "$emit")/"; fi
    # shellcheck disable=SC2046
    compile_swift "$name" "$target" "$sdk" "$config" Stowage "$out/$name/modules-$config" "$emit" \
        -package-name stowage -swift-version 6 -I "$platform_modules" \
        -Xcc -fmodule-map-file="$out/$name/modules-$(basename "$sources")/CStowageShims.modulemap" \
        $(find "$sources/Sources/Stowage" -name '*.swift' | sort)
}

# The command for macOS: swift-argument-parser's two modules from its checkout, declarations
# only (it is Apple's package, built and tested on macOS by its own CI; here it only has to give
# the command its API for the Apple target), then the command itself in full.
compile_command() {
    local name=$1 target=$2 sdk=$3 config=$4 sources=$5 modules=$out/$1/modules-$4 files
    local parser=$root/.build/checkouts/swift-argument-parser/Sources
    if [ ! -d "$parser" ]; then (cd "$root" && swift package resolve >/dev/null); fi
    for module in ArgumentParserToolInfo ArgumentParser; do
        mapfile -d '' files < <(find "$parser/$module" -name '*.swift' -print0 | sort -z)
        # shellcheck disable=SC2046
        "$swiftc" -emit-module -emit-module-path "$modules/$module.swiftmodule" -target "$target" -sdk "$sdk" \
            -module-cache-path "$out/$name/cache" -module-name "$module" -swift-version 6 -parse-as-library \
            $(config_flags "$config" "$name") -Xfrontend -disable-objc-interop -I "$modules" -wmo -no-emit-module-separately-wmo \
            -Xfrontend -experimental-skip-all-function-bodies -suppress-warnings \
            "${files[@]}" 2>&1 \
            | grep -v "^warning: Could not read SDKSettings.json" || true
    done
    # shellcheck disable=SC2046
    compile_swift "$name" "$target" "$sdk" "$config" stowage "$modules" "" -package-name stowage -swift-version 6 \
        -Xcc -fmodule-map-file="$out/$name/modules-$(basename "$sources")/CStowageShims.modulemap" \
        $(find "$sources/Sources/stowage" -name '*.swift' | sort)
}

# The StowageTesting library (from the folder $5) for one platform and configuration, over the
# Stowage module in $6 and the toolchain's Testing.
compile_testing() {
    local name=$1 target=$2 sdk=$3 config=$4 sources=$5 modules=$6
    # shellcheck disable=SC2046
    compile_swift "$name" "$target" "$sdk" "$config" StowageTesting "$modules" "" -package-name stowage -swift-version 6 \
        -Xcc -fmodule-map-file="$out/$name/modules-$(basename "$sources")/CStowageShims.modulemap" \
        $(find "$sources/Sources/StowageTesting" -name '*.swift' | sort)
}

# Checks the C shim's files for one platform: clang, the Apple target, the stand-in headers.
check_c() {
    local target=$1 sdk=$2 sources=$3 file
    for file in "$sources"/Sources/CStowageShims/*.c; do
        "$clang" -fsyntax-only -target "$target" -isysroot "$sdk" -Werror -Wall \
            -I "$sources/Sources/CStowageShims/include" "$file" 2>&1
    done
}

# One platform: its SDK, the library in Debug (for macOS with the command) and Release, the C shim.
check_platform() {
    local name=$1 target=$2 triple=$3 family=$4 sources=$5
    local sdk=$out/$name/sdk log=$out/$name/log config start=$SECONDS
    make_sdk "$name" "$target" "$triple" "$family" "$sdk"
    : > "$log"
    for config in Debug Release; do
        mkdir -p "$out/$name/modules-$config"
        compile_library "$name" "$target" "$sdk" "$config" "$sources" "$out/$name/modules-$config/Stowage.swiftmodule" >> "$log" 2>&1
        # Only over a library that compiled: without its module the errors of what imports it take minutes.
        if ! grep -q "error:" "$log"; then
            compile_testing "$name" "$target" "$sdk" "$config" "$sources" "$out/$name/modules-$config" >> "$log" 2>&1
            if [ "$name" = macOS ] && [ "${DARWIN_CHECK_COMMAND:-1}" != 0 ]; then
                compile_command "$name" "$target" "$sdk" "$config" "$sources" >> "$log" 2>&1
            fi
        fi
    done
    check_c "$target" "$sdk" "$sources" >> "$log" 2>&1
    if grep -q "error:" "$log"; then
        echo "darwin-check: $name FAILED ($target)"
        grep -E "error:" "$log" | sort -u | head -40
        return 1
    fi
    local what="the Stowage and StowageTesting libraries (Debug and Release)"
    [ "$name" = macOS ] && [ "${DARWIN_CHECK_COMMAND:-1}" != 0 ] && what="the Stowage and StowageTesting libraries and the stowage command (Debug and Release)"
    echo "darwin-check: $name: $what and the C shim compile ($target, $((SECONDS - start)) s)"
}

# The check checks itself: each breakage must be rejected, with the expected message.
# file | text | replacement | platform | expected error
# file | text | replacement | platform | configuration | expected error. A file of the surface
# (DarwinCheck/Surface/...) is changed in that platform's stand-in SDK, and restored after.
mutations='Sources/StowagePlatform/ExtendedAttributes+Darwin.swift|fgetxattr(fd, $0, nil, 0, 0, 0)|fgetxattr(fd, $0, nil, 0)|iOS|Debug|missing arguments for parameters
Sources/StowagePlatform/VolumeStatistics+Darwin.swift|var figures = statfs()|var figures = statfs(); var vfs = statvfs()|iOS|Debug|cannot find '"'"'statvfs'"'"' in scope
Sources/Stowage/Filling/FillEngine+SafetyFloor.swift|for path in [RawPath("/")] + ProtectedFolders.homeFolders() {|for path in [RawPath("/"), RawPath(FileManager.default.homeDirectoryForCurrentUser.path)] {|iOS|Debug|is unavailable in iOS
Sources/CStowageShims/shims.c|return close_keeping_errno(fd, flistxattr(fd, list, size, 0));|return close_keeping_errno(fd, flistxattr(fd, list, size));|iOS|Debug|too few arguments
Sources/Stowage/Overview/StorageOverview.swift|@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)||iOS|Debug|is only available in iOS 17.0 or newer
DarwinCheck/Surface/include/dirent.h|    struct _telldir *__dd_td;           // telldir'"'"'s bookkeeping
} DIR;|};
typedef struct __dirdesc DIR;|iOS|Debug|cannot find type '"'"'DIR'"'"' in scope
Sources/StowagePlatform/DirectoryStream+Darwin.swift|typealias DirectoryStreamHandle = UnsafeMutablePointer<DIR>|typealias DirectoryStreamHandle = OpaquePointer|iOS|Debug|cannot convert value of type
Sources/Stowage/Store/Store+NSImage.swift|#if canImport(AppKit) && !targetEnvironment(macCatalyst)|#if canImport(AppKit)|MacCatalyst|Debug|is unavailable in Mac Catalyst
Sources/StowagePlatform/VolumeStatistics+Darwin.swift|var figures = statfs()|var figures: statfs|iOS|Release|used before being initialized
Sources/StowagePlatform/Syscalls+Sync.swift|DurabilityObserver.record(.syncData, descriptor: fd)|DurabilityObserver.record(.syncData, descriptor: fd, again: true)|watchOS|Debug|extra argument
Sources/StowageTesting/SimulatedStorageTrait.swift|performing function: @Sendable () async throws -> Void) async throws {|performing function: @Sendable () throws -> Void) async throws {|MacCatalyst|Release|does not conform to protocol '"'"'TestScoping'"'"''

# Applies the mutation $1 (record number $2), compiles, and says whether the expected error came.
mutate_and_compile() {
    local line=$1 number=$2 file text replacement platform config expected target triple family sdk copy log original
    IFS='|' read -r file text replacement platform config expected <<< "${line//$'\n'/$'\x1f'}"
    text=${text//$'\x1f'/$'\n'} replacement=${replacement//$'\x1f'/$'\n'} expected=${expected%$'\x1f'}
    IFS='|' read -r _ target triple family <<< "$(echo "$platforms_all" | grep "^$platform|")"
    sdk=$out/$platform/sdk
    copy=$out/self-test-$number
    log=$out/self-test-$number.log
    rm -rf "$copy" && mkdir -p "$copy" && cp -R "$sources/Sources" "$copy/"
    case $file in
        DarwinCheck/Surface/include/*) original=$sdk/usr/include/${file#DarwinCheck/Surface/include/} ;;
        *) original=$copy/$file ;;
    esac
    if ! grep -qF -- "${text%%$'\n'*}" "$original"; then
        echo "darwin-check: self-test FAILED: '${text%%$'\n'*}' is no longer in $file; update the mutation"; return 1
    fi
    cp -p "$original" "$copy.original"
    content=$(cat "$original")
    printf '%s\n' "${content/"$text"/"$replacement"}" > "$original"
    {
        case $file in
            Sources/StowageTesting/*)  # over the library, compiled from the same copy
                mkdir -p "$copy/modules"
                compile_library "$platform" "$target" "$sdk" "$config" "$copy" "$copy/modules/Stowage.swiftmodule"
                compile_testing "$platform" "$target" "$sdk" "$config" "$copy" "$copy/modules" ;;
            *) compile_library "$platform" "$target" "$sdk" "$config" "$copy"; check_c "$target" "$sdk" "$copy" ;;
        esac
    } > "$log" 2>&1
    case $file in DarwinCheck/*) cp -p "$copy.original" "$original" ;; esac
    rm -rf "$copy" "$copy.original"
    if grep -q -- "$expected" "$log"; then
        echo "darwin-check: self-test: rejected as it must be ($platform, $config): $file: '${text%%$'\n'*}' -> '${replacement%%$'\n'*}' ($expected)"
    else
        echo "darwin-check: self-test FAILED: this breakage passed the check ($platform, $config): $file: '$text' -> '$replacement'"
        grep "error:" "$log" | head -5
        return 1
    fi
}

# Waits for whichever job of the array named $1 ends first (bash 5.1's `wait -n -p`; before it,
# the oldest), takes it out of the array and returns its status. Waiting for the oldest alone left a
# slot empty whenever a later job ended first: the check kept 0.92 of the two cores busy.
wait_any() {
    local -n running=$1
    local finished pid status=0 kept=()
    if (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )); then
        wait -n -p finished "${running[@]}" || status=$?
    else
        finished=${running[0]}
        wait "$finished" || status=$?
    fi
    for pid in "${running[@]}"; do [ "$pid" = "$finished" ] || kept+=("$pid"); done
    running=("${kept[@]}")
    return "$status"
}

# Every mutation, $jobs at a time; those of the surface (which change a platform's SDK in place)
# alone, after the others.
self_test() {
    local failures=0 line number=0 pids=() surface=()
    # The text may span lines (written with a newline in the table): records start at "<path>|".
    while IFS= read -r -d $'\x1e' line; do
        number=$((number + 1))
        case $line in DarwinCheck/*) surface+=("$number"$'\x1d'"$line"); continue ;; esac
        mutate_and_compile "$line" "$number" &
        pids+=($!)
        if [ ${#pids[@]} -ge "$jobs" ]; then
            wait_any pids || failures=$((failures + 1))
        fi
    done < <(printf '%s\n' "$mutations" | awk 'NR > 1 && /^(Sources|DarwinCheck)\/[^|]*\|/ { printf "\036" } { print }'; printf '\036')
    for pid in "${pids[@]}"; do wait "$pid" || failures=$((failures + 1)); done
    for line in "${surface[@]}"; do
        mutate_and_compile "${line#*$'\x1d'}" "${line%%$'\x1d'*}" || failures=$((failures + 1))
    done
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
# Whether the sources under $1 decide anything on `targetEnvironment(simulator)`: the only thing in
# which a simulator's compilation differs from its device's (same standard-library interface, same
# availability, same `os(...)`). Without such a condition the simulator compiles exactly what the
# device compiled, so the default run leaves it out (about 2 minutes of CPU); naming it runs it.
decides_on_simulator() {
    grep -rqE 'targetEnvironment\(simulator\)' --include='*.swift' --include='*.c' --include='*.h' "$1/Sources"
}

all_names=$(echo "$platforms_all" | cut -d'|' -f1 | tr '\n' ' ')
# The sources are compiled from a snapshot, so an edit made meanwhile cannot mix two versions.
sources=$out/sources
rm -rf "$sources" && mkdir -p "$sources/Sources"
cp -R "$root/Sources/Stowage" "$root/Sources/StowagePlatform" "$root/Sources/StowageTesting" "$root/Sources/CStowageShims" "$root/Sources/stowage" "$sources/Sources/"
if [ $# -gt 0 ]; then
    selected=$*
elif decides_on_simulator "$sources"; then
    selected=$all_names
else
    selected=${all_names/iOS-simulator /}
    echo "darwin-check: iOS-simulator left out: no source decides on targetEnvironment(simulator), so it would compile what iOS compiles (DarwinCheck/check.sh iOS-simulator runs it)"
fi
pids=()
status=0
for name in $selected; do
    line=$(echo "$platforms_all" | grep "^$name|") || { echo "darwin-check: unknown platform $name"; exit 64; }
    IFS='|' read -r _ target triple family <<< "$line"
    check_platform "$name" "$target" "$triple" "$family" "$sources" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then
        wait_any pids || status=1
    fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [ $status -ne 0 ]; then exit 1; fi
# The self-test uses the SDKs of iOS, Mac Catalyst and watchOS: only when those were checked.
for name in iOS MacCatalyst watchOS; do
    case " $selected " in *" $name "*) ;; *) echo "darwin-check: passed (no self-test: it needs iOS, MacCatalyst and watchOS)"; exit 0 ;; esac
done
self_test || exit 1
# The rule that leaves the simulator out sees the condition wherever a source would put it.
probe=$out/simulator-probe
rm -rf "$probe" && mkdir -p "$probe/Sources/Stowage/Deep"
decides_on_simulator "$probe" && { echo "darwin-check: self-test FAILED: an empty tree decides on the simulator"; exit 1; }
printf '#if targetEnvironment(simulator)\nlet onSimulator = true\n#endif\n' > "$probe/Sources/Stowage/Deep/Probe.swift"
decides_on_simulator "$probe" || { echo "darwin-check: self-test FAILED: a source with targetEnvironment(simulator) would not bring the simulator back"; exit 1; }
rm -rf "$probe"
echo "darwin-check: self-test: a source deciding on targetEnvironment(simulator) brings the iOS simulator back into the default run"
echo "darwin-check: passed"
