#!/usr/bin/env python3
"""Diffs two heap_sites dumps (Soak/tools/heap_sites.c): the call stacks whose live bytes grew most between them,
symbolized with llvm-symbolizer (the Swift toolchain's, which reads DWARF 5) and demangled.

    Soak/tools/heap_sites.py /tmp/hs.0002.txt /tmp/hs.0022.txt [--top 15] [--frames 12]

A soak tool, not part of the product.
"""
import argparse
import collections
import os
import shutil
import subprocess


def read_dump(path):
    header, maps, sites = "", [], {}
    section = None
    with open(path) as f:
        for line in f:
            if line.startswith("# heap_sites"):
                header = line.strip()
            elif line.startswith("# maps"):
                section = "maps"
            elif line.startswith("# sites"):
                section = "sites"
            elif section == "maps":
                fields = line.split()
                if len(fields) >= 6 and fields[5].startswith("/"):
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    maps.append((start, end, int(fields[2], 16), fields[5]))
            elif section == "sites" and line.startswith("site "):
                fields = line.split()
                frames = tuple(int(x, 16) for x in fields[4:])
                live, blocks, allocations = int(fields[1]), int(fields[2]), int(fields[3])
                old = sites.get(frames, (0, 0, 0))
                sites[frames] = (old[0] + live, old[1] + blocks, old[2] + allocations)
    return header, maps, sites


def module_of(address, maps, bases):
    for start, end, _, path in maps:
        if start <= address < end:
            return path, address - bases[path]
    return None, address


def symbolizer():
    for candidate in ("/opt/swift/usr/bin/llvm-symbolizer", shutil.which("llvm-symbolizer")):
        if candidate and os.path.exists(candidate):
            return candidate
    raise SystemExit("llvm-symbolizer not found")


def symbolize(addresses, maps):
    bases = {}
    for start, _, offset, path in maps:
        if offset == 0 and path not in bases:
            bases[path] = start
    by_module = collections.defaultdict(list)
    where = {}
    for address in addresses:
        path, relative = module_of(address - 1, maps, bases) if address else (None, 0)
        where[address] = (path, relative)
        if path:
            by_module[path].append(relative)
    names = {}
    tool = symbolizer()
    for path, relatives in by_module.items():
        text = "\n".join(hex(r) for r in relatives) + "\n"
        out = subprocess.run([tool, "--obj=" + path, "--functions=linkage", "--inlining=false", "--no-demangle"],
                             input=text, capture_output=True, text=True).stdout
        blocks = [b for b in out.split("\n\n") if b.strip()]
        for relative, block in zip(relatives, blocks):
            lines = block.strip().split("\n")
            names[(path, relative)] = (lines[0], lines[1] if len(lines) > 1 else "")
    mangled = sorted({n[0] for n in names.values() if n[0].startswith(("$s", "_$s", "$S"))})
    demangled = {}
    if mangled:
        out = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(mangled) + "\n",
                             capture_output=True, text=True).stdout.split("\n")
        demangled = dict(zip(mangled, out))
    result = {}
    for address, (path, relative) in where.items():
        if not path:
            result[address] = hex(address)
            continue
        function, location = names.get((path, relative), ("??", ""))
        function = demangled.get(function, function)
        if function.startswith("_Z"):
            function = subprocess.run(["c++filt", function], capture_output=True, text=True).stdout.strip()
        location = location.split("/Sources/")[-1] if "/Sources/" in location else os.path.basename(location)
        result[address] = f"{function[:150]}  [{os.path.basename(path)} {location}]"
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--frames", type=int, default=14)
    args = parser.parse_args()
    header_a, _, a = read_dump(args.before)
    header_b, maps, b = read_dump(args.after)
    print(header_a)
    print(header_b)
    growth = []
    for frames in set(a) | set(b):
        la, ba, aa = a.get(frames, (0, 0, 0))
        lb, bb, ab = b.get(frames, (0, 0, 0))
        if lb != la or bb != ba:
            growth.append((lb - la, bb - ba, ab - aa, lb, bb, frames))
    growth.sort(key=lambda g: -g[0])
    total = sum(g[0] for g in growth)
    print(f"live bytes {total:+d} over {len(growth)} call stacks that changed; "
          f"grown: {sum(g[0] for g in growth if g[0] > 0):+d}, shrunk: {sum(g[0] for g in growth if g[0] < 0):+d}")
    shown = growth[:args.top] + [g for g in growth[-5:] if g[0] < 0 and g not in growth[:args.top]]
    names = symbolize({f for g in shown for f in g[5][:args.frames]}, maps)
    for bytes_, blocks, allocations, live, live_blocks, frames in shown:
        print(f"\n{bytes_:+d} bytes, {blocks:+d} blocks ({allocations} allocations between; live now {live} in {live_blocks})")
        for frame in frames[:args.frames]:
            print("    " + names.get(frame, hex(frame)))


if __name__ == "__main__":
    main()
