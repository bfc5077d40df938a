#!/usr/bin/python3
"""eksim nccl against published nccl-tests all_reduce results on AWS.

Runs `eksim nccl` once per published point, prints a Markdown table (source, NCCL version,
topology, size, published, eksim, error) with the median |error| per size band, and with
--readme FILE rewrites the table between the NCCL-CALIBRATION markers of that file.

    /usr/bin/python3 bench/nccl/published.py [--eksim build/eksim] [--readme README.md]
"""
import argparse
import re
import statistics
import subprocess
import sys

AWSOME = "awsome-distributed-training micro-benchmarks/nccl-tests README"
AWSOME_BATCH = "awsome-distributed-training micro-benchmarks/nccl-tests/aws-batch README"
NOT_STATED = "not stated"
GIB, MIB = 1 << 30, 1 << 20

# (source, NCCL version, instance, nodes, GPUs per node, --net, size, metric, published value).
# metric "busbw" in GB/s (out-of-place), "time" in us.
POINTS = [
    ("NVIDIA/nccl#527", "2.9.9", "p4d.24xlarge", 1, 8, "efa", GIB, "busbw", 230.77),
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", 2 * GIB, "busbw", 78.33),
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", 64 * MIB, "busbw", 47.58),
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", 8, "time", 164.3),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 2 * GIB, "busbw", 444.0),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 16 * GIB, "busbw", 483.1),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 64 * MIB, "busbw", 359.5),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 8, "time", 12.9),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 2 * GIB, "busbw", 443.7),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 16 * GIB, "busbw", 487.1),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 64 * MIB, "busbw", 209.2),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", MIB, "busbw", 15.95),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 8, "time", 69.1),
    ("NVIDIA/nccl#398 (TCP)", "2.4.8", "p3dn.24xlarge", 2, 1, "socket", 256 * MIB, "busbw", 4.7),
    ("NVIDIA/nccl#450 (TCP, 100 Gb)", NOT_STATED, "p3dn.24xlarge", 4, 8, "socket", 128 * MIB, "busbw", 5.0),
]

# Further points of the same published curves, kept aside: not used to fit, printed to check.
HOLDOUT = [
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", MIB, "busbw", 6.35),
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", 16 * MIB, "busbw", 26.39),
    (AWSOME, NOT_STATED, "p4de.24xlarge", 2, 8, "efa", 256 * MIB, "busbw", 69.89),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 64 * 1024, "busbw", 0.91),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 16 * MIB, "busbw", 105.52),
    (AWSOME, NOT_STATED, "p5.48xlarge", 2, 8, "efa", 256 * MIB, "busbw", 342.81),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 64 * 1024, "busbw", 6.01),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", MIB, "busbw", 64.24),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 16 * MIB, "busbw", 236.82),
    (AWSOME_BATCH, NOT_STATED, "p5.48xlarge", 1, 8, "efa", 256 * MIB, "busbw", 418.91),
]

BANDS = [("sizes >= 1 GiB (busbw)", 10.0), ("1-256 MiB (busbw)", 15.0), ("small messages (time)", 30.0)]


def band(size, metric):
    if metric == "time":
        return BANDS[2][0]
    return BANDS[0][0] if size >= GIB else BANDS[1][0]


def size_text(size):
    for unit, scale in (("GiB", GIB), ("MiB", MIB), ("KiB", 1024)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def run_point(eksim, instance, nodes, ppn, net, size):
    cmd = [eksim, "nccl", "--instance", instance, "--nodes", str(nodes), "--gpus-per-node", str(ppn),
           "-b", str(size), "-e", str(size), "--net", net]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:  # an eksim without --net (before issue 40)
        out = subprocess.run(cmd[:-2], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        fields = line.split()
        if fields and not line.startswith("#") and fields[0] == str(size):
            return float(fields[5]), float(fields[7])  # time (us), busbw (GB/s)
    raise RuntimeError(f"no row for {size} B in: {' '.join(cmd)}")


def measured(eksim, points):
    """(Markdown rows, {band: [abs errors]}) of the points."""
    rows, errors = [], {name: [] for name, _ in BANDS}
    for source, version, instance, nodes, ppn, net, size, metric, published in points:
        time_us, busbw = run_point(eksim, instance, nodes, ppn, net, size)
        got = time_us if metric == "time" else busbw
        err = 100.0 * (got / published - 1.0)
        errors[band(size, metric)].append(abs(err))
        unit = "us" if metric == "time" else "GB/s busbw"
        topo = f"{nodes} x {instance}, {ppn} GPU/node" + (", TCP" if net == "socket" else "")
        rows.append(f"| {source} | {version} | {topo} | {size_text(size)} | {published:g} {unit} | "
                    f"{got:.4g} | {err:+.1f} % |")
    return rows, errors


HEAD = ["| source | NCCL | topology | size | published | eksim | error |", "|---|---|---|---|---|---|---|"]


def table(eksim):
    rows, errors = measured(eksim, POINTS)
    lines = HEAD + rows + ["", "| band | points | median abs error | target |", "|---|---|---|---|"]
    worst = 0.0
    for name, target in BANDS:
        med = statistics.median(errors[name])
        worst = max([worst] + errors[name])
        lines.append(f"| {name} | {len(errors[name])} | {med:.1f} % | <= {target:g} % |")
    lines.append("")
    lines.append(f"Worst point: {worst:.1f} % (target: none worse than 2x).")
    rows, errors = measured(eksim, HOLDOUT)
    held = sorted(e for band_errors in errors.values() for e in band_errors)
    lines += ["", "Kept aside (not fitted):", ""] + HEAD + rows
    lines += ["", f"Kept aside: median abs error {statistics.median(held):.1f} %, worst {held[-1]:.1f} %."]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eksim", default="build/eksim")
    ap.add_argument("--readme", help="rewrite the table between the NCCL-CALIBRATION markers of this file")
    args = ap.parse_args()
    text = table(args.eksim)
    sys.stdout.write(text)
    if args.readme:
        doc = open(args.readme).read()
        begin, end = "<!-- NCCL-CALIBRATION:BEGIN -->\n", "<!-- NCCL-CALIBRATION:END -->"
        if begin not in doc or end not in doc:
            sys.exit(f"{args.readme}: no {begin.strip()} ... {end} markers")
        doc = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: begin + text + end, doc, flags=re.S)
        open(args.readme, "w").write(doc)


if __name__ == "__main__":
    main()
