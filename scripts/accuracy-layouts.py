#!/usr/bin/env python3
"""Per-scenario summary of the checks `scripts/accuracy.sh` kept (KEEP=DIR): how far each
scenario's paired rounds spread, what change each check could resolve, and the verdicts.

Usage: scripts/accuracy-layouts.py DIR [PREFIX]   (PREFIX selects kept checks, default "aa-")

For every wall-time row: the median over checks of the round-to-round spread (1.4826 x MAD of
the per-round log ratios, percent; with code layouts varied per round this is mostly the
spread between layouts), the median smallest detectable change, and how many checks gave each
verdict. Reads only the kept check.json files.
"""
import json
import os
import statistics
import sys


def main():
    root = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else "aa-"
    rows = {}
    checks = 0
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "check.json")
        if not name.startswith(prefix) or not os.path.exists(path):
            continue
        checks += 1
        for r in json.load(open(path))["comparison"]["rows"]:
            if r["instrument"] != "walltime":
                continue
            rows.setdefault(r["id"], []).append(r)
    print(f"{checks} checks in {root} ({prefix}*)")
    print(f"{'scenario':40s} {'spread %':>9s} {'resolves %':>11s}  verdicts")
    resolving = {5.0: 0, 2.0: 0}
    for rid, rs in rows.items():
        spread = [r["spread_pct"] for r in rs if r.get("spread_pct") is not None]
        mde = [r["min_detectable_pct"] for r in rs if r.get("min_detectable_pct") is not None]
        verdicts = {}
        for r in rs:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        med_mde = statistics.median(mde) if mde else float("inf")
        for x in resolving:
            resolving[x] += med_mde <= x
        print(
            f"{rid:40s} {statistics.median(spread) if spread else float('nan'):9.2f} "
            f"{med_mde:11.2f}  "
            + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))
        )
    for x, n in resolving.items():
        print(f"scenarios whose median check resolves {x:g} %: {n}/{len(rows)}")


if __name__ == "__main__":
    main()
