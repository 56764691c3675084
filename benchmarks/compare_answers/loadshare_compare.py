"""compare BEFORE.json AFTER.json: every command's JSON compared value by value (to 1e-12 relative), exit lines
compared; table/notes text changes listed, not failed."""
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = 0


def same(x, y, path):
    global bad
    if isinstance(x, dict) and isinstance(y, dict):
        if list(x) != list(y):
            print("KEYS", path, list(x), list(y)); bad += 1
        for k in x:
            if k in y:
                same(x[k], y[k], path + "." + k)
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            print("LEN", path, len(x), len(y)); bad += 1; return
        for i, (u, v) in enumerate(zip(x, y)):
            same(u, v, f"{path}[{i}]")
    elif type(x) is not type(y):
        print("TYPE", path, repr(x), repr(y)); bad += 1
    elif isinstance(x, float):
        if not (x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))):
            print("NUM", path, x, y); bad += 1
    elif x != y:
        print("DIFF", path, repr(x)[:100], repr(y)[:100]); bad += 1


def split(text):
    body, _, status = text.rstrip("\n").rpartition("\n")
    try:
        return json.loads(body), status
    except ValueError:
        return None, status


identical = 0
for key in a:
    if key not in b:
        continue
    (jx, sx), (jy, sy) = split(a[key]), split(b[key])
    n = bad
    if sx != sy:
        print("EXIT", sx, sy); bad += 1
    if jx is not None and jy is not None and not (isinstance(jx, dict) and "error" in jx):
        same(jx, jy, "")
    elif jx is not None and "error" in jx:
        if jy is None or "error" not in jy:
            print("ERROR LOST"); bad += 1
        elif jx != jy:
            print("error wording:", jx["error"], "->", jy["error"])
    elif a[key] != b[key]:
        print("text changed (table/notes)")
    if bad > n:
        print("   in", key[:120])
    elif a[key] == b[key] or jx is not None:
        identical += 1
print(f"{identical} identical, failures: {bad}")
