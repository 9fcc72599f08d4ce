#!/usr/bin/env python3
"""Compares the stand-in Darwin C headers with Apple's published open-source headers.

DarwinCheck/Surface/include is our own stand-in of the part of the Apple SDK's C headers that
Stowage uses (DarwinCheck/check.sh type-checks Stowage against it on Linux). This script checks
that stand-in, declaration by declaration, against the headers Apple publishes at the versions
the stand-in names (its module.modulemap, "Checked against" comment), parsed by the same clang for
each Apple target:

  - every type the stand-in declares is complete exactly where Apple's is (an opaque stand-in
    of a complete type changes how Swift imports it), with Apple's size and alignment;
  - every struct and union has Apple's fields, in Apple's order, with Apple's types, offsets and
    nullability (`_Nonnull` pointers are not optional in Swift);
  - every typedef, and every function's parameters, return type, variadic-ness and nullability,
    are Apple's;
  - every macro has Apple's value and type (function-like macros: at a set of sample arguments;
    macros that are not constants, such as `errno`: the same tokens once fully expanded);
  - every availability the compiler would apply on the target's platform, and every Swift
    attribute (such as "unavailable from async"), is Apple's.

Types are compared as clang's canonical types, so a spelling through other typedefs (`off_t` or
`__int64_t`) is not a difference, while `int` for `long`, `long` for `long long`, an opaque type
for a complete one, or a field out of order is.

Apple's sources (https://github.com/apple-oss-distributions):
    git clone --bare https://github.com/apple-oss-distributions/Libc
    git clone --bare https://github.com/apple-oss-distributions/xnu
    git clone --bare https://github.com/apple-oss-distributions/libpthread
    git clone --bare https://github.com/apple-oss-distributions/libmalloc
    git clone --bare https://github.com/apple-oss-distributions/libplatform
    git clone --bare https://github.com/apple-oss-distributions/AvailabilityVersions
Pass each as a git directory (bare or not; the script reads the tag the stand-in names, whatever
is checked out) or as a plain folder already at that tag (for instance GitHub's tarball of the
tag, unpacked):
    DarwinCheck/verify-surface.py --libc Libc.git --xnu xnu.git --libpthread libpthread.git \
        --libmalloc libmalloc.git --libplatform libplatform.git \
        --availability-versions AvailabilityVersions.git
or put them in one folder (as Libc, xnu, libpthread, libmalloc, libplatform,
AvailabilityVersions, each optionally ending in .git)
and pass it with --sources, or set STOWAGE_APPLE_SOURCES to it.
    DarwinCheck/verify-surface.py --self-test ...   also plants known mistakes in a copy of the
                                                    stand-in and fails unless each is reported.
Exit status: 0 when no difference is found, 1 when some are, 64 for a usage error.
Needs: Python 3 (standard library), git, tar, bash and the clang of the Swift toolchain.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the repository
from verify_surface_clang import builtin_declarations, compare_target, fail, run  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SURFACE = os.path.join(ROOT, "DarwinCheck", "Surface", "include")

# name, clang target (deployment targets of Package.swift), the platform whose availability
# the compiler applies there.
TARGETS = [
    ("macOS", "arm64-apple-macos13.0", "macos"),
    ("macOS x86_64", "x86_64-apple-macos13.0", "macos"),
    ("iOS", "arm64-apple-ios16.0", "ios"),
    ("iOS Simulator x86_64", "x86_64-apple-ios16.0-simulator", "ios"),
    ("Mac Catalyst", "arm64-apple-ios16.0-macabi", "maccatalyst"),
    ("tvOS", "arm64-apple-tvos16.0", "tvos"),
    ("watchOS", "arm64_32-apple-watchos9.0", "watchos"),
    ("visionOS", "arm64-apple-xros1.0", "xros"),
]

PROJECTS = ("Libc", "xnu", "libpthread", "libmalloc", "libplatform", "AvailabilityVersions")

SDK_SETTINGS = ('{"CanonicalName": "stowage-verify", "Version": "99.0", "MaximumDeploymentTarget": "99.99.99",'
                ' "VersionMap": {"iOS_xrOS": {"17.0": "1.0", "18.0": "2.0"}, "xrOS_iOS": {"1.0": "17.0", "2.0": "18.0"}}}\n')

# ---------------------------------------------------------------------------------------------
# Apple's sources, at the tags the stand-in names.

def standin_tags(surface):
    text = open(os.path.join(surface, "module.modulemap")).read()
    start = text.find("Checked against")
    if start < 0:
        fail("module.modulemap has no 'Checked against' comment naming Apple's tags")
    comment = text[start:text.find("module ", start)]
    tags = {match.group(1): match.group(0) for match in re.finditer(r"\b(%s)-[0-9]+(\.[0-9]+)*" % "|".join(PROJECTS), comment)}
    for project in PROJECTS:
        if project not in tags:
            fail("module.modulemap's 'Checked against' comment names no %s tag" % project)
    return tags


def is_git_dir(path):
    result = run(["git", "--git-dir", path, "rev-parse", "--git-dir"])
    return result.returncode == 0


def extract(project, path, tag, work):
    """A folder holding the project's files at the tag."""
    if path is None:
        fail("where is %s? Pass --%s, or --sources (see --help)" % (project, project.lower()))
    if not os.path.isdir(path):
        fail("%s: %s is not a folder" % (project, path))
    git_dir = path if is_git_dir(path) else os.path.join(path, ".git")
    if is_git_dir(git_dir):
        if run(["git", "--git-dir", git_dir, "rev-parse", "--verify", "-q", tag + "^{commit}"]).returncode != 0:
            fail("%s: %s has no tag %s (git --git-dir %s fetch --tags)" % (project, path, tag, git_dir))
        destination = os.path.join(work, "sources", project)
        os.makedirs(destination)
        archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", tag], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", destination], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            fail("%s: git archive %s failed" % (project, tag))
        return destination, "%s (git, tag %s)" % (path, tag)
    return path, "%s (a folder, taken to be %s)" % (path, tag)


def find_sources(arguments, tags, work):
    base = arguments.sources or os.environ.get("STOWAGE_APPLE_SOURCES")
    given = {"Libc": arguments.libc, "xnu": arguments.xnu, "libpthread": arguments.libpthread,
             "libmalloc": arguments.libmalloc, "libplatform": arguments.libplatform,
             "AvailabilityVersions": arguments.availability_versions}
    folders, notes = {}, []
    for project, path in given.items():
        if path is None and base:
            for name in (project, project + ".git", "apple-oss-distributions+%s/repo" % project):
                if os.path.isdir(os.path.join(base, name)):
                    path = os.path.join(base, name)
                    break
        folders[project], note = extract(project, path, tags[project], work)
        notes.append(note)
    return folders, notes


def strip_libc_private(text):
    """Libc's header install deletes //Begin-Libc ... //End-Libc blocks (strip-header.ed)."""
    return re.sub(r"(?ms)^//Begin-Libc$.*?^//End-Libc$\n?", "", text)


def copy_tree(source, destination, transform=None, skip=()):
    for folder, _, files in os.walk(source):
        relative = os.path.relpath(folder, source)
        for name in files:
            if not name.endswith(".h"):
                continue
            path = os.path.normpath(os.path.join(relative, name))
            if skip(path) if callable(skip) else path in skip:
                continue
            target = os.path.join(destination, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(os.path.join(folder, name), encoding="latin-1") as file:
                text = file.read()
            with open(target, "w", encoding="latin-1") as file:
                file.write(transform(text) if transform else text)


def apple_sysroot(folders, work):
    """An SDK-like sysroot of Apple's headers, installed as the SDK has them."""
    sysroot = os.path.join(work, "apple")
    include = os.path.join(sysroot, "usr", "include")
    # xnu's user headers: bsd/<folder> is /usr/include/<folder> (sys, machine, i386, arm, ...).
    # The kernel's own parts stay out as in the SDK: KERNEL, PRIVATE ... are not defined here.
    copy_tree(os.path.join(folders["xnu"], "bsd"), include)
    copy_tree(os.path.join(folders["xnu"], "libkern", "libkern"), os.path.join(include, "libkern"))
    copy_tree(os.path.join(folders["xnu"], "osfmk", "mach"), os.path.join(include, "mach"))
    copy_tree(os.path.join(folders["xnu"], "libkern", "os"), os.path.join(include, "os"))
    # Libsyscall's public wrapper header that <unistd.h> includes.
    copy_tree(os.path.join(folders["xnu"], "libsyscall", "wrappers"), include,
              skip=lambda path: path != "gethostuuid.h")
    # Libc's headers; its sys/cdefs.h is not installed (the SDK's is xnu's).
    copy_tree(os.path.join(folders["Libc"], "include"), include, strip_libc_private, skip={"sys/cdefs.h"})
    # libpthread's: <pthread/...> and <sys/_pthread/...> (the pthread types of <sys/_types.h>).
    copy_tree(os.path.join(folders["libpthread"], "include"), include)
    # libmalloc's: <malloc/_malloc.h>, where <stdlib.h> gets malloc, realloc and free.
    copy_tree(os.path.join(folders["libmalloc"], "include"), include)
    # libplatform's: <os/lock.h> (os_unfair_lock), and the other headers it installs.
    copy_tree(os.path.join(folders["libplatform"], "include"), include,
              skip=lambda path: path.startswith("exclavekit/") or "private" in path)
    # AvailabilityVersions: the headers are generated from templates by its `availability` script.
    versions = folders["AvailabilityVersions"]
    generated = os.path.join(work, "availability")
    libexec = os.path.join(generated, "sdk", "usr", "local", "libexec")
    os.makedirs(libexec)
    tool = os.path.join(libexec, "availability.pl")
    # Its build first embeds the version data into the script itself (as xnu's scripts expect).
    result = run([sys.executable, os.path.join(versions, "availability"), "--preprocess",
                  os.path.join(versions, "availability"), tool])
    if result.returncode != 0:
        fail("AvailabilityVersions: preparing its availability script failed: " + result.stderr.strip(), 1)
    os.chmod(tool, 0o755)
    templates = os.path.join(versions, "templates")
    for name in ("Availability.h", "AvailabilityInternal.h", "AvailabilityInternalLegacy.h",
                 "AvailabilityMacros.h", "AvailabilityVersions.h", "os_availability.h"):
        output = os.path.join(include, "os", "availability.h") if name == "os_availability.h" else os.path.join(include, name)
        os.makedirs(os.path.dirname(output), exist_ok=True)
        result = run([sys.executable, tool, "--preprocess", os.path.join(templates, name), output])
        if result.returncode != 0:
            fail("AvailabilityVersions: generating %s failed: %s" % (name, result.stderr.strip()), 1)
    # xnu's two generated headers of <sys/cdefs.h>.
    scripts = os.path.join(folders["xnu"], "bsd", "sys")
    for command in (["bash", os.path.join(scripts, "make_symbol_aliasing.sh"), os.path.join(generated, "sdk"),
                     os.path.join(include, "sys", "_symbol_aliasing.h")],
                    ["bash", os.path.join(scripts, "make_posix_availability.sh"),
                     os.path.join(include, "sys", "_posix_availability.h")]):
        result = run(command)
        if result.returncode != 0:
            fail("xnu: %s failed: %s" % (" ".join(command), result.stderr.strip()), 1)
    with open(os.path.join(sysroot, "SDKSettings.json"), "w") as file:
        file.write(SDK_SETTINGS)
    return sysroot


def standin_sysroot(surface, work, name="standin"):
    sysroot = os.path.join(work, name)
    shutil.copytree(surface, os.path.join(sysroot, "usr", "include"))
    with open(os.path.join(sysroot, "SDKSettings.json"), "w") as file:
        file.write(SDK_SETTINGS)
    return sysroot


# ---------------------------------------------------------------------------------------------
# What the stand-in declares.

def module_headers(surface):
    text = open(os.path.join(surface, "module.modulemap")).read()
    return re.findall(r'^\s*header\s+"([^"]+)"', text, re.M)


def standin_macros(surface):
    """name -> (header, parameter count or None for an object-like macro)."""
    macros = {}
    for folder, _, files in os.walk(surface):
        for name in sorted(files):
            if not name.endswith(".h"):
                continue
            path = os.path.join(folder, name)
            header = os.path.relpath(path, surface)
            for line in open(path):
                match = re.match(r"\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(([^)]*)\))?\s*(.*)", line)
                if not match or not match.group(4).strip() and not match.group(2):
                    continue  # include guards and empty macros
                if match.group(1).startswith("STOWAGE_STANDIN_"):
                    continue  # the stand-in's own helpers, which Apple's headers do not have
                parameters = None if match.group(2) is None else len([p for p in match.group(3).split(",") if p.strip()])
                macros.setdefault(match.group(1), (header, parameters))
    return macros


def header_of(surface, name, kind):
    """The stand-in header declaring `name` (for the report)."""
    patterns = {
        "function": r"[\s*]%s\s*\(",
        "record": r"\b(struct|union)\s+%s\b",
        "typedef": r"\b%s\s*[;,]",
    }
    for pattern in [patterns[kind]] + [other for other in patterns.values() if other != patterns[kind]]:
        pattern = re.compile(pattern % re.escape(name))
        for folder, _, files in sorted(os.walk(surface)):
            for file in sorted(files):
                if file.endswith(".h"):
                    text = re.sub(r"//[^\n]*", "", open(os.path.join(folder, file)).read())
                    if pattern.search(text):
                        return os.path.relpath(os.path.join(folder, file), surface)
    return "?"


def verify(surface, apple_root, work, targets, quiet=False):
    headers = module_headers(surface)
    macros = standin_macros(surface)
    standin_root = standin_sysroot(surface, work, "standin-%d" % len(os.listdir(work)))
    by_difference = defaultdict(list)
    totals = defaultdict(int)
    for name, target, platform in targets:
        scratch = tempfile.mkdtemp(dir=work)
        builtins = builtin_declarations(standin_root, target, scratch)
        differences, compared = compare_target(standin_root, apple_root, target, platform, headers, macros, builtins, scratch)
        for key, count in compared.items():
            totals[key] = max(totals[key], count)
        for difference in differences:
            by_difference[difference].append(name)
        if not quiet:
            print("verify-surface: %s (%s): %d difference%s" % (name, target, len(differences), "" if len(differences) == 1 else "s"))
    return by_difference, totals


def report(surface, by_difference, totals, targets):
    kinds = {"record": "record", "typedef": "typedef", "function": "function", "availability": "function"}
    lines = []
    for (kind, name, what), where in sorted(by_difference.items()):
        if kind == "macro":
            header = standin_macros(surface).get(name, ("?",))[0]
        else:
            header = header_of(surface, name, kinds[kind])
        scope = "all targets" if len(where) == len(targets) else ", ".join(where)
        lines.append("  %s: %s %s: %s [%s]" % (header, kind, name, what, scope))
    summary = ("%d records (%d fields), %d typedefs, %d functions, %d macros, and the availability of %d of them; "
               "on %d targets" % (totals["records"], totals["fields"], totals["typedefs"], totals["functions"],
                                   totals["macros"], totals["availabilities"], len(targets)))
    return lines, summary


# ---------------------------------------------------------------------------------------------
# The self-test: known mistakes planted in a copy of the stand-in must each be reported, and a
# spelling that only goes through other typedefs must not.

MISTAKES = [
    # header, pattern, replacement, (kind, name) that must be reported
    ("dirent.h", r"(?s)typedef\s+struct\s*(\w+\s*)?(\{.*?\}\s*)?DIR\s*;", "typedef struct __stowage_opaque_dir DIR;",
     ("typedef", "DIR"), "an opaque DIR"),
    ("sys/stat.h", r"(?m)^(\s*)dev_t st_dev;\n(\s*)mode_t st_mode;", r"\1mode_t st_mode;\n\2dev_t st_dev;",
     ("record", "stat"), "two fields of struct stat swapped"),
    ("dirent.h", r"(?m)^(\s*)long(\s+__dd_loc;)", r"\1int\2",
     ("record", "DIR"), "int for long in DIR's __dd_loc"),
    ("sys/ioctl.h", r"(?s)struct winsize \{.*?\};", "struct winsize;",
     ("record", "winsize"), "an opaque struct winsize"),
    ("sys/wait.h", r"(?m)^(#define WEXITSTATUS\(x\)\s+\(\(\(x\) >> )8", r"\g<1>7",
     ("macro", "WEXITSTATUS"), "WEXITSTATUS reading the wrong bits"),
    ("sys/errno.h", r"(?m)^extern int \*__error\(void\);",
     "extern int *__error(void) __attribute__((availability(ios, introduced=99.0)));",
     ("availability", "__error"), "an availability on __error, declared extern"),
    ("sys/fcntl.h", r"(?m)^#define O_CREAT\s+\S+", "#define O_CREAT     0x00000400",
     ("macro", "O_CREAT"), "a wrong O_CREAT"),
    ("unistd.h", r"(?m)^int ftruncate\(int, off_t\);", "int ftruncate(int, long);",
     ("function", "ftruncate"), "long for off_t (long long) in ftruncate"),
    ("sys/mount.h", r"(?m)^(\s*)uint32_t f_fssubtype;\n", "",
     ("record", "statfs"), "a field of struct statfs left out"),
    ("dirent.h", r"(fdopendir\(int\)[^;]*?availability\(ios, introduced=)8\.0", r"\g<1>9.0",
     ("availability", "fdopendir"), "a wrong availability of fdopendir"),
    ("sys/mman.h", r"(?m)^#define MAP_FAILED(\s+)\(\(void \*\)-1\)", r"#define MAP_FAILED\g<1>((void *)0)",
     ("macro", "MAP_FAILED"), "a null MAP_FAILED (a macro that is no constant, compared by its expansion)"),
]
HARMLESS = ("unistd.h", r"(?m)^int fsync\(int\);", "int fsync(__int32_t);", ("function", "fsync"),
            "fsync's int spelled __int32_t")


def self_test(surface, apple_root, work, targets):
    """Each mistake is planted alone in a fresh copy of the stand-in and must be reported; the
    harmless spelling must change nothing."""
    baseline, _ = verify(surface, apple_root, work, targets, quiet=True)
    failures = 0
    for number, (header, pattern, replacement, (kind, name), label) in enumerate(MISTAKES + [HARMLESS]):
        copy = os.path.join(work, "self-test-%d" % number)
        shutil.copytree(surface, copy)
        path = os.path.join(copy, header)
        changed, count = re.subn(pattern, replacement, open(path).read(), count=1)
        if count != 1:
            print("verify-surface: self-test FAILED: cannot plant %s: its pattern is no longer in %s; "
                  "update the self-test" % (label, header))
            failures += 1
            continue
        with open(path, "w") as file:
            file.write(changed)
        planted, _ = verify(copy, apple_root, work, targets, quiet=True)
        new = [(k, n, what) for (k, n, what) in planted if (k, n, what) not in baseline]
        if (header, pattern) == HARMLESS[:2]:
            if new:
                print("verify-surface: self-test FAILED: a spelling through typedefs was reported: %s (%s %s: %s)"
                      % ((label,) + new[0]))
                failures += 1
            else:
                print("verify-surface: self-test: not reported, as it must not be: %s" % label)
            continue
        found = [what for (k, n, what) in new if k == kind and n == name]
        if found:
            print("verify-surface: self-test: reported as it must be: %s (%s %s: %s)" % (label, kind, name, found[0]))
        else:
            print("verify-surface: self-test FAILED: not reported: %s" % label)
            failures += 1
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 2)[2],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", help="a folder holding all of them, each under its project's name (or STOWAGE_APPLE_SOURCES)")
    parser.add_argument("--libc", help="Apple's Libc: a git directory or a folder at the tag")
    parser.add_argument("--xnu", help="Apple's xnu: a git directory or a folder at the tag")
    parser.add_argument("--libpthread", help="Apple's libpthread: a git directory or a folder at the tag")
    parser.add_argument("--libmalloc", help="Apple's libmalloc: a git directory or a folder at the tag")
    parser.add_argument("--libplatform", help="Apple's libplatform: a git directory or a folder at the tag")
    parser.add_argument("--availability-versions", help="Apple's AvailabilityVersions: a git directory or a folder at the tag")
    parser.add_argument("--surface", default=SURFACE, help="the stand-in's include folder (default: %(default)s)")
    parser.add_argument("--target", action="append", help="only these targets (names or triples; default: all)")
    parser.add_argument("--self-test", action="store_true", help="also plant known mistakes and fail unless each is reported")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (the two sysroots) and print its path")
    arguments = parser.parse_args()
    targets = TARGETS
    if arguments.target:
        targets = [t for t in TARGETS if t[0] in arguments.target or t[1] in arguments.target]
        if not targets:
            fail("unknown target; known: " + ", ".join(t[0] for t in TARGETS))
    surface = os.path.abspath(arguments.surface)
    tags = standin_tags(surface)
    work = tempfile.mkdtemp(prefix="verify-surface.")
    try:
        folders, notes = find_sources(arguments, tags, work)
        for note in notes:
            print("verify-surface: Apple's sources: " + note)
        apple_root = apple_sysroot(folders, work)
        by_difference, totals = verify(surface, apple_root, work, targets)
        lines, summary = report(surface, by_difference, totals, targets)
        print("verify-surface: compared %s" % summary)
        for line in lines:
            print(line)
        print("verify-surface: %d difference%s" % (len(lines), "" if len(lines) == 1 else "s"))
        status = 1 if lines else 0
        if arguments.self_test:
            if self_test(surface, apple_root, work, [t for t in TARGETS if t[0] == "iOS"]) != 0:
                status = 1
            else:
                print("verify-surface: self-test passed")
        return status
    finally:
        if arguments.keep:
            print("verify-surface: work folder kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
