#!/usr/bin/env python3
"""More echo-path-change scenes for tuning: the tuning half has two (`path_moved`, `path_door`), too few to choose
a path-change setting on. This draws N more of each from the same template and the tuning half's pools (voices,
sentences, rooms), with seeds of their own ids (`path_moved_x1`, ...), renders them, and scores systems on them
and on the tuning half's two (reconvergence over far-end-only time, `metrics.reconvergence_s`; ERLE).

  .venv/bin/python Scripts/scenarios/path_variants.py --count 4 --out /tmp/path-variants \\
      --afe .build/release/afe [--systems default,webrtc] [--system 'name=--echo-chain reset-db=-99']
      [--start 5] [--rooms living,bedroom,kitchen,meeting] [--render-only] [--no-base]

--start N numbers the variants from N (x5, x6, ...: scenes not drawn before). --rooms puts variant i in the i-th
room of the list (cycling; the template's RT60 range is kept only for its own room), its id then
`path_moved_ROOM_xI` unless ROOM is the template's (so its seed, and every other draw, is its own).
--render-only writes the scenes and stops (for evaluate.py --scenarios OUT --only ...); --no-base scores the
variants alone, without the tuning half's two.

Tuning only: never for the test half (its pools stay unseen). The scenes are not in the matrix's hashes."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import asr  # noqa: E402
import evaluate  # noqa: E402
import generate  # noqa: E402
import matrix  # noqa: E402


def variant_specs(count, start=1, rooms=None):
    specs = []
    for sid, kind, fixed in [t for t in matrix.TEMPLATE if t[1] == "path_change"]:
        for i in range(start, start + count):
            room = rooms[(i - start) % len(rooms)] if rooms else fixed["room"]
            f = dict(fixed) if room == fixed["room"] else {k: v for k, v in fixed.items() if k != "rt60_range"}
            f["room"] = room
            vid = f"{sid}_x{i}" if room == fixed["room"] else f"{sid}_{room}_x{i}"
            saved = list(matrix.TEMPLATE)
            matrix.TEMPLATE[:] = [(vid, kind, f)]  # the draw of this id's seed, tuning pools
            try:
                specs.append(matrix.scenarios("tune")[0])
            finally:
                matrix.TEMPLATE[:] = saved
    return specs


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--count", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--afe", default=os.path.join(evaluate.ROOT, ".build", "release", "afe"))
    p.add_argument("--scenarios", default=os.path.join(evaluate.ROOT, "out", "scenarios"))
    p.add_argument("--systems", default="default")
    p.add_argument("--system", action="append")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--start", type=int, default=1)
    p.add_argument("--rooms", help="comma-separated room archetypes, cycled over the variants")
    p.add_argument("--render-only", action="store_true")
    p.add_argument("--no-base", action="store_true", help="leave out the tuning half's path_moved / path_door")
    a = p.parse_args()
    from multiprocessing import Pool
    rooms = a.rooms.split(",") if a.rooms else None
    variants = variant_specs(a.count, a.start, rooms)
    specs = [s for s in variants if not os.path.exists(os.path.join(a.out, "tune", s["id"], "truth.json"))]
    with Pool(a.jobs) as pool:
        list(pool.imap_unordered(generate.write_scenario, [(s, a.out) for s in specs]))
    if a.render_only:
        print("rendered: " + ",".join(s["id"] for s in variants))
        return
    systems = evaluate.parse_systems(a.systems, a.system)
    dirs = [os.path.join(a.out, "tune", s["id"]) for s in variants]
    dirs += [] if a.no_base else [os.path.join(a.scenarios, "tune", t[0]) for t in matrix.TEMPLATE if t[1] == "path_change"]
    jobs = [(a.afe, d, systems, os.path.join(a.out, "runs"), False, True) for d in dirs]
    with Pool(a.jobs, initializer=asr.use, initargs=("task",)) as pool:
        results = pool.map(evaluate.evaluate_scenario, jobs, chunksize=1)
    print("reconvergence s / ERLE dB per scene")
    print("%-16s" % "scene" + "".join("%16s" % n for n in systems))
    for r in results:
        cells = [(r["systems"][n].get("reconvergence_s"), r["systems"][n].get("erle_db") or 0) for n in systems]
        print("%-16s" % r["id"] + "".join("%16s" % f"{'none' if v is None else f'{v:.2f}'}/{e:.1f}" for v, e in cells))
    for n in systems:
        v = [r["systems"][n].get("reconvergence_s") for r in results]
        ok = [x for x in v if x is not None]
        print(f"{n}: mean {sum(ok) / max(1, len(ok)):.2f} s, worst {'none' if None in v else f'{max(v):.2f} s'}, "
              f"{sum(1 for x in v if x is None or x > 0.5)} of {len(v)} above 0.5 s")


if __name__ == "__main__":
    main()
