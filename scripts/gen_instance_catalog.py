#!/usr/bin/python3
"""Writes models/data/instances.json from the shared EC2 data and eksim's additions.

    scripts/gen_instance_catalog.py [DATA] [ADDITIONS] [OUT]

DATA       ../shared/data/ec2-instance-types.json (1,389 types, every value from a public
           generated table; its README explains the fields and the sources' disagreements)
ADDITIONS  models/data/sources/eksim-additions.json (what no generated table gives: quota
           buckets, measured kubelet memory, "up to" network bursts, ap-northeast-2 prices,
           NVLink, spot factors; each with its source)
OUT        models/data/instances.json

The output is compact and still JSON: a column list and one array per type, one type per line,
so that eksim can index the lines at start and parse a type only when a scenario names it.
The same inputs give the same bytes.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Columns of a row, in order. A missing value is null.
COLUMNS = [
    "name", "vcpu", "memoryMiB", "arch", "cpuManufacturer",
    "category", "family", "generation", "size",
    "gpus", "gpuName", "gpuManufacturer", "gpuMemoryMiB", "deviceResource",
    "acceleratorName", "acceleratorManufacturer", "acceleratorCount", "neuronCores",
    "enis", "ipv4PerEni", "enisTotal", "networkCards", "branchEnis", "maxPods",
    "baselineBandwidthMbps", "networkPerformance", "efa", "efaInterfaces",
    "hypervisor", "bareMetal", "localNvmeGB", "ebsBandwidthMbps",
    "quotaBucket", "onDemandUSD", "karpenterAllocatable",
    # eksim additions (null: not measured / not known; the loader documents its default)
    "kubeletMemoryKi", "kubeletMemoryEstimated", "networkBurstGbps", "networkUpTo",
    "gpuInterconnect", "nvlinkGBps", "spotPriceFactor", "karpenterDocs",
]


def quota_bucket(name, buckets):
    """The bucket whose prefix is the longest match of the family's leading letters."""
    family = name.split(".")[0]
    letters = re.match(r"[a-z]+", family).group(0)
    best, best_len = None, 0
    for bucket, b in buckets.items():
        for p in b["prefixes"]:
            # "u-6tb1", "u7i-12tb": High Memory; otherwise the letters must be exactly the prefix
            # ("inf2" is Inf, "i4i" is Standard, "im4gn" is Standard through "im").
            ok = letters == p or (p == "u" and family.startswith("u"))
            if ok and len(p) > best_len:
                best, best_len = bucket, len(p)
    return best


def row(name, t, add, buckets):
    a = dict(add["types"].get(name, {}))
    family = t.get("family") or name.split(".")[0]
    for k, v in add["familyGpuInterconnect"].get(family, {}).items():
        a.setdefault(k, v)
    bucket = quota_bucket(name, buckets)
    prices = dict(t.get("onDemandUSD", {}))
    prices.update(a.get("onDemandUSD", {}))
    ka = t.get("karpenterAllocatable")
    spot = a.get("spotPriceFactor", add["spotPriceFactorByBucket"].get(bucket))
    values = dict(t)
    values.update({
        "quotaBucket": bucket,
        "onDemandUSD": {r: prices[r] for r in sorted(prices)} or None,
        "karpenterAllocatable": [ka["cpuMilli"], ka["memoryMiB"], ka["pods"]] if ka else None,
        "kubeletMemoryKi": a.get("kubeletMemoryKi"),
        "kubeletMemoryEstimated": a.get("kubeletMemoryEstimated"),
        "networkBurstGbps": a.get("networkBurstGbps"),
        "networkUpTo": a.get("networkUpTo"),
        "gpuInterconnect": a.get("gpuInterconnect"),
        "nvlinkGBps": a.get("nvlinkGBps"),
        "spotPriceFactor": spot,
    })
    values["name"] = name
    return [values.get(c) for c in COLUMNS]


def main():
    data_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "data", "ec2-instance-types.json")
    add_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "models", "data", "sources", "eksim-additions.json")
    out_path = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "models", "data", "instances.json")
    with open(data_path) as f:
        data = json.load(f)
    with open(add_path) as f:
        add = json.load(f)
    buckets = add["quotaBuckets"]
    missing = [n for n in add["types"] if n not in data["types"]]
    if missing:
        sys.exit("additions name types the data does not have: " + ", ".join(missing))

    head = {
        "generatedBy": "scripts/gen_instance_catalog.py from ../shared/data/ec2-instance-types.json and models/data/sources/eksim-additions.json",
        "dataDescription": data["description"],
        "sources": data["sources"],
        "additions": add["sources"],
        "units": dict(data["units"], kubeletMemoryKi="KiB (Node status.capacity.memory)", networkBurstGbps="Gbit/s",
                      nvlinkGBps="GB/s per GPU", spotPriceFactor="fraction of the On-Demand price",
                      karpenterAllocatable="[cpuMilli, memoryMiB, pods] as Karpenter computes it (AL2023, no blockDeviceMappings)"),
        "quotaBuckets": buckets,
        "columns": COLUMNS,
    }
    lines = ["{"]
    for k, v in head.items():
        lines.append(" %s: %s," % (json.dumps(k), json.dumps(v, separators=(",", ":"))))
    lines.append(' "instanceTypes": [')
    rows = [row(n, t, add, buckets) for n, t in data["types"].items()]
    offset = sum(len(l) + 1 for l in lines)  # ASCII only: characters are bytes
    where = {}
    for i, r in enumerate(rows):
        line = json.dumps(r, separators=(",", ":")) + ("," if i < len(rows) - 1 else "")
        where[r[0]] = offset
        offset += len(line) + 1
        lines.append(line)
    lines.append(" ],")
    # The last line: "NAME@BYTE-OFFSET-OF-ITS-ROW;..." sorted by name, so that eksim finds a row
    # without reading the rows before it (start-up touches the head and this line only).
    lines.append(' "index": "%s"' % ";".join("%s@%d" % (n, where[n]) for n in sorted(where)))
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert text.isascii()
    json.loads(text)  # the output must stay valid JSON
    with open(out_path, "w") as f:
        f.write(text)
    print("%s: %d types" % (out_path, len(rows)))


if __name__ == "__main__":
    main()
