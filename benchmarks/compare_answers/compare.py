"""compare before.json after.json: JSON outputs compared key by key (extra keys in after allowed, reported)."""
import json, sys, math
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = 0
def same(x, y, path):
    global bad
    if isinstance(x, dict) and isinstance(y, dict):
        for k in x:
            if k not in y:
                print("MISSING KEY", path, k); bad += 1
            else:
                same(x[k], y[k], path + "." + k)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            print("LEN", path, len(x), len(y)); bad += 1; return
        for i, (u, v) in enumerate(zip(x, y)):
            same(u, v, f"{path}[{i}]")
    elif isinstance(x, float) and isinstance(y, (int, float)) and not isinstance(y, bool):
        if not (x == y or abs(x - y) <= 1e-10 * max(abs(x), abs(y))):
            print("NUM", path, x, y); bad += 1
    elif x != y:
        print("DIFF", path, repr(x)[:80], repr(y)[:80]); bad += 1
for key in a:
    if key not in b:
        continue
    x, y = a[key], b[key]
    def parse(t):
        t = t.replace("\nexit 0\n", "\n").strip()
        try: return json.loads(t)
        except Exception: return None
    jx, jy = parse(x), parse(y)
    if jx is not None and jy is not None:
        n = bad; same(jx, jy, key[:100])
        if bad > n: print("   in", key)
    elif x != y:
        if "--format json" in key or key.startswith("RJ") or "exit " in x[-8:] and x.strip().split("\n")[-1] != y.strip().split("\n")[-1]:
            print("TEXT DIFF", key); bad += 1
        else:
            print("text changed (table/notes):", key)
print("failures:", bad)
