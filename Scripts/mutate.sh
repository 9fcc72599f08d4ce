#!/usr/bin/env bash
# Mutation testing of Stowage's own tests: puts each small, realistic bug of Scripts/mutants.tsv
# into a scratch copy of the sources, one at a time, runs the tests that should catch it, and
# prints a table and the score (caught / all). Not part of CI: it takes about a minute a mutant.
#
#   Scripts/mutate.sh              every mutant
#   Scripts/mutate.sh ID ...       only these (ids from the first column of Scripts/mutants.tsv)
#   Scripts/mutate.sh --full ...   also runs the whole suite against each mutant that survived
#   Scripts/mutate.sh --list       lists the mutants
#
# The working tree is never changed: sources are copied to $STOWAGE_MUTATION_DIR (default
# .build-mutants/ in the package, ignored by git) and built there with a build folder of their
# own, kept between runs so that each mutant costs an incremental build. The mutated file is
# put back after each mutant, also when the script is interrupted.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
list="$repo/Scripts/mutants.tsv"
work=${STOWAGE_MUTATION_DIR:-$repo/.build-mutants}
src="$work/src"
build="$work/build"
logs="$work/logs"
full=false
selected=()
for argument in "$@"; do
    case "$argument" in
        --full) full=true ;;
        --list) grep -v '^#' "$list" | awk -F'\t' '{ printf "%-24s %-20s %s\n", $1, $2, $7 }'; exit 0 ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) selected+=("$argument") ;;
    esac
done

mkdir -p "$src" "$build" "$logs"

# Copy the working tree's files (tracked and untracked, not ignored); a file unchanged since the
# last run keeps its time, so the build stays incremental.
echo "Copying the sources to $src"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) | while IFS= read -r -d '' file; do
    [ -f "$repo/$file" ] || continue
    if ! cmp -s "$repo/$file" "$src/$file" 2>/dev/null; then
        mkdir -p "$(dirname "$src/$file")"
        cp -p "$repo/$file" "$src/$file"
    fi
done
# A file removed or renamed in the working tree goes from the copy too (it would still be built).
(cd "$repo" && git ls-files --cached --others --exclude-standard) | sort > "$work/files.txt"
(cd "$src" && find . -type f ! -path ./Package.resolved | sed 's|^\./||' | sort) | comm -23 - "$work/files.txt" \
    | while IFS= read -r stale; do echo "Removing from the copy: $stale"; rm -f -- "$src/$stale"; done
[ -f "$repo/Package.resolved" ] && cp -p "$repo/Package.resolved" "$src/Package.resolved"

# Put the mutated file back, whatever happens.
current_file=""
restore() {
    if [ -n "$current_file" ]; then
        cp -p "$repo/$current_file" "$src/$current_file"
        current_file=""
    fi
}
trap restore EXIT
trap 'restore; echo "interrupted: $src is unmutated"; exit 130' INT TERM

# Replaces the one occurrence of ORIGINAL in FILE by MUTATED ("\n" is a line break); exit 3
# when ORIGINAL does not occur exactly once.
apply() {
    perl -e '
        my ($file, $original, $mutated) = @ARGV;
        s/\\n/\n/g for ($original, $mutated);
        local $/;
        open(my $in, "<", $file) or die "$file: $!";
        my $text = <$in>;
        close $in;
        my $count = () = $text =~ /\Q$original\E/g;
        exit 3 if $count != 1;
        substr($text, index($text, $original), length $original) = $mutated;
        open(my $out, ">", $file) or die "$file: $!";
        print $out $text;
        close $out;
    ' "$@"
}

swift_build() { swift build --build-tests --package-path "$src" --scratch-path "$build" >"$1" 2>&1; }
# The long tests too (STOWAGE_LONG_TESTS=1), as .ci/run runs them: a mutant some long test catches
# is caught (cache-index-update is caught only by the long sixteen-threads test).
swift_test() { STOWAGE_LONG_TESTS=1 timeout 1200 swift test --skip-build --package-path "$src" --scratch-path "$build" "$@"; }

mutants=()
while IFS= read -r line; do
    [[ -z "$line" || "$line" == \#* ]] && continue
    id=${line%%$'\t'*}
    if [ ${#selected[@]} -gt 0 ]; then
        keep=false
        for wanted in "${selected[@]}"; do [ "$wanted" = "$id" ] && keep=true; done
        $keep || continue
    fi
    mutants+=("$line")
done < "$list"
[ ${#mutants[@]} -gt 0 ] || { echo "no mutant selected"; exit 64; }

# The tests must pass without a mutant, or nothing below means anything.
echo "Building the unmutated copy (the first run builds everything)"
swift_build "$logs/baseline-build.log" || { tail -30 "$logs/baseline-build.log"; echo "the unmutated copy does not build"; exit 1; }
filters=$(printf '%s\n' "${mutants[@]}" | awk -F'\t' '{ print $6 }' | tr '|' '\n' | sort -u | paste -sd'|')
echo "Running the selected tests without a mutant"
if ! swift_test --filter "$filters" >"$logs/baseline-test.log" 2>&1; then
    grep -E '✘' "$logs/baseline-test.log" | head -20
    echo "the tests fail without a mutant (log: $logs/baseline-test.log)"
    exit 1
fi

results="$work/results.tsv"
: > "$results"
printf '\n%-24s %-20s %-10s %5s  %s\n' MUTANT CAPABILITY RESULT SECS "CAUGHT BY (first failing test) / WHAT THE BUG IS"
killed=0
survived=0
invalid=0
for line in "${mutants[@]}"; do
    IFS=$'\t' read -r id capability file original mutated tests what <<< "$line"
    started=$(date +%s)
    log="$logs/$id.log"
    current_file="$file"
    result=""
    detail="$what"
    if ! apply "$src/$file" "$original" "$mutated"; then
        result="stale"
        detail="the original text is not in $file exactly once: update Scripts/mutants.tsv"
    elif ! swift_build "$log.build"; then
        result="no-build"
        detail="the mutant does not compile: $(grep -m1 'error:' "$log.build" | cut -c1-120)"
    elif swift_test --filter "$tests" >"$log" 2>&1; then
        result="SURVIVED"
        # A filter that names no test (a display name instead of the type's or function's name)
        # passes with nothing run: that proves nothing either way.
        if grep -q "Test run with 0 tests" "$log" && ! grep -qE "Executed [1-9][0-9]* test" "$log"; then
            result="no-tests"
            detail="the filter '$tests' selects no test (it matches test identifiers such as a suite's type name): update Scripts/mutants.tsv"
        fi
        if $full && swift_test >"$log.full" 2>&1; then
            detail="$what (the whole suite passes too)"
        elif $full; then
            result="caught"
            detail="only by the whole suite: $(grep -m1 '✘ Test' "$log.full" | sed 's/ recorded an issue.*//; s/^✘ Test //' | cut -c1-110 || true)"
        fi
    else
        result="caught"
        # Nothing to quote when the tests crashed (a mutant caught by a signal): the log's last line says so.
        first=$(grep -m1 -E '✘ Test .* (recorded an issue|failed)' "$log" | sed 's/ recorded an issue.*//; s/ failed after.*//; s/^✘ Test //' | cut -c1-110 || true)
        detail="${first:-$(tail -1 "$log" | cut -c1-110)}"
    fi
    restore
    case "$result" in
        caught) killed=$((killed + 1)) ;;
        SURVIVED) survived=$((survived + 1)) ;;
        *) invalid=$((invalid + 1)) ;;
    esac
    seconds=$(( $(date +%s) - started ))
    printf '%-24s %-20s %-10s %5s  %s\n' "$id" "$capability" "$result" "$seconds" "$detail"
    printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$capability" "$result" "$seconds" "$detail" >> "$results"
done

# Leave the copy built unmutated, so the next run starts from it.
swift_build "$logs/final-build.log" || true
total=$((killed + survived))
echo
echo "caught $killed of $total mutants ($(( total > 0 ? 100 * killed / total : 0 ))%); $invalid stale, not compiling or selecting no test (not scored)"
echo "logs: $logs; table: $results"
[ "$survived" -eq 0 ] && [ "$invalid" -eq 0 ]
