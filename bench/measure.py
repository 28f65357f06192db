#!/usr/bin/env python3
"""Runs a command as /usr/bin/time does, to a finer grain: prints "wall cpu peak_MB status"
(wall and CPU seconds, CPU = user + sys over all threads, from getrusage of the finished child
as /usr/bin/time reads it; peak resident memory; status ok, timeout or failed:LAST_ERROR_LINE).
The command's stdout goes to OUT; a run longer than TIMEOUT seconds is killed.

Usage: measure.py TIMEOUT OUT COMMAND [ARG ...]"""
import os
import resource
import signal
import subprocess
import sys
import time

timeout, out, command = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
with open(out, "wb") as stdout:
    child = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = child.communicate(timeout=timeout)
        status = "ok" if child.returncode == 0 else "failed:" + "_".join(
            ([line for line in err.decode(errors="replace").splitlines() if "warning" not in line] or ["?"])[-1].split())
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        status = "timeout"
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{wall:.3f} {cpu:.3f} {after.ru_maxrss // 1024} {status}")
