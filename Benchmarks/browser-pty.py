#!/usr/bin/env python3
"""Runs a full-screen disk-usage browser in a pseudo-terminal and times it, for Benchmarks/browser.sh.

    browser-pty.py --tree-marker TEXT [--columns 120 --rows 40] -- COMMAND ARGS...
    browser-pty.py --until-exit -- COMMAND ARGS...

Prints one line of JSON: `first` (seconds from the start until the first screen with text),
`tree` (seconds until a screen contains TEXT: the browser shows the scanned tree), `peakKiB` (the
process's peak resident set, VmHWM, read once the tree is shown), `status` (after `q`). Only `q` is
typed: nothing is ever deleted. Each run has a deadline (--limit, 600 s): past it the process is
killed and the run fails.

With --until-exit, `tree` is the time until the command has ended (`peakKiB` is null: the
child's peak would count the driver's own, forked before the command started):
how Benchmarks/browser.sh times the plain scan, from the same start on the same clock as the
browsers, to the millisecond (GNU time's %e gives hundredths of a second).
"""
import argparse, fcntl, json, os, pty, re, select, signal, struct, sys, termios, time

ESCAPES = re.compile(rb"\x1b(\[[0-9;?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[=>78]|\][^\x07\x1b]*(\x07|\x1b\\))")

def main():
    parser = argparse.ArgumentParser()
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--tree-marker")
    group.add_argument("--until-exit", action="store_true")
    parser.add_argument("--columns", type=int, default=120)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--limit", type=float, default=600)
    parser.add_argument("command", nargs="+")
    arguments = parser.parse_args()
    start = time.monotonic()
    pid, master = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("NO_COLOR", None)
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", arguments.rows, arguments.columns, 0, 0))
        os.execvp(arguments.command[0], arguments.command)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", arguments.rows, arguments.columns, 0, 0))
    if arguments.until_exit:
        until_exit(pid, master, start, arguments.limit, arguments.command[0])
        return
    marker = arguments.tree_marker.encode()
    received = b""
    first = tree = None
    peak = None
    while time.monotonic() - start < arguments.limit:
        ready, _, _ = select.select([master], [], [], 0.01)
        if ready:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            received += chunk
            # Terminals answer queries (cursor position, device attributes); answer as one would.
            if b"\x1b[6n" in chunk:
                os.write(master, b"\x1b[1;1R")
            if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:
                os.write(master, b"\x1b[?62;c")
            text = ESCAPES.sub(b"", received)
            if first is None and len(re.sub(rb"\s", b"", text)) >= 10:
                first = time.monotonic() - start
            if tree is None and marker in text[-200000:]:
                tree = time.monotonic() - start
                with open(f"/proc/{pid}/status") as status:
                    peak = int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
                os.write(master, b"q")
                break
    else:
        os.kill(pid, signal.SIGKILL)
    if tree is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        tail = ESCAPES.sub(b"", received)[-2000:].decode(errors="replace")
        sys.exit(f"error: {arguments.command[0]} never showed {arguments.tree_marker!r}; the screen ended with:\n{tail}")
    # ncdu asks before quitting on some versions: answer, then wait.
    deadline = time.monotonic() + 30
    status = None
    while time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(code)
            break
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                if b"?" in os.read(master, 1 << 16):
                    os.write(master, b"y")
            except OSError:
                pass
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print(json.dumps({"first": first, "tree": tree, "peakKiB": peak, "status": status}))

def until_exit(pid, master, start, limit, name):
    """Reads (and drops) the command's output until it ends; prints when it ended."""
    first = None
    while time.monotonic() - start < limit:
        ready, _, _ = select.select([master], [], [], 0.01)
        if ready:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the command has ended and closed the terminal
                break
            if not chunk:
                break
            if first is None:
                first = time.monotonic() - start
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.exit(f"error: {name} did not end within {limit} s")
    _, code = os.waitpid(pid, 0)
    ended = time.monotonic() - start
    print(json.dumps({"first": first, "tree": ended, "peakKiB": None, "status": os.waitstatus_to_exitcode(code)}))

main()
