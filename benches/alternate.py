#!/usr/bin/env python3
"""Times commands taking turns, so a noisy machine's drift falls on all of them alike.

usage: benches/alternate.py RUNS NAME=COMMAND [NAME=COMMAND ...]

Each round runs every command once (the order rotates from round to round); after a warm-up
of 10 rounds, RUNS rounds are timed. Prints each command's median and p90 wall time, and the
median of the per-round ratios to the first command (the ratio the benches quote: within one
round both ran under the same load). COMMAND is split like a shell would (shlex), not run
through one; its output is discarded and a failure stops the run.
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    cmds = []
    for arg in sys.argv[2:]:
        name, _, cmd = arg.partition("=")
        cmds.append((name, shlex.split(cmd)))

    def once(argv):
        t = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - t) * 1000

    times = [[] for _ in cmds]
    for r in range(10 + runs):
        order = list(range(len(cmds)))
        k = r % len(cmds)
        order = order[k:] + order[:k]
        took = [0.0] * len(cmds)
        for i in order:
            took[i] = once(cmds[i][1])
        if r >= 10:
            for i, t in enumerate(took):
                times[i].append(t)
    base = times[0]
    for (name, _), t in zip(cmds, times):
        s = sorted(t)
        ratio = statistics.median(a / b for a, b in zip(t, base))
        print(f"  median {statistics.median(s):7.2f} ms  p90 {s[int(len(s) * 0.9)]:7.2f} ms  "
              f"x{ratio:.3f} of {cmds[0][0]} (per-round median)  {name}")


if __name__ == "__main__":
    main()
