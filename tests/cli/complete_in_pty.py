#!/usr/bin/env python3
"""Types command lines into an interactive bash on a pseudo-terminal, TAB at the end of each,
then Enter, and prints what the command received: readline's own word splitting and
replacement, which a completion function called directly does not go through.

Usage: complete_in_pty.py COMPLETION_SCRIPT DIRECTORY LINE...
Prints one line per LINE: the arguments `taskmap` (a shell function here) received, each
followed by '|'; "TIMEOUT" when none came within 20 seconds.
"""
import os
import pty
import select
import sys
import time


def read_until(fd, marker, seconds):
    out = b""
    end = time.time() + seconds
    while time.time() < end and marker not in out:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def main():
    script, directory, lines = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(directory)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "HOME": directory, "PS1": "$ ",
               "HISTFILE": "/dev/null"}
        os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
    os.write(fd, b"source '" + script.encode() +
             b"'; taskmap() { printf 'ARGS:'; printf '%s|' \"$@\"; printf ':END\\n'; }; echo READ''Y\n")
    read_until(fd, b"READY\r\n", 20)
    for line in lines:
        # Readline completes at the TAB before it reads the Enter behind it.
        os.write(fd, line.encode() + b"\t\n")
        out = read_until(fd, b":END", 20).decode(errors="replace")
        start = out.rfind("ARGS:")
        end = out.find(":END", start)
        print(out[start + 5:end] if start >= 0 and end >= 0 else "TIMEOUT", flush=True)
    os.kill(pid, 9)
    os.waitpid(pid, 0)


main()
