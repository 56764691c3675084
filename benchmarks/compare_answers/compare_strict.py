"""compare_strict.py BEFORE.json AFTER.json: per captured command, JSON identical (keys, order, values)?
Extra keys in after are listed apart; errors compared by exit status (and the message printed)."""
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
same = extra_only = differ = 0
for cmd, x in a.items():
    if cmd not in b:
        continue
    y = b[cmd]
    if "--format json" not in cmd:
        if x["exit"] != y["exit"]:
            print("EXIT", x["exit"], y["exit"], cmd); differ += 1
        continue
    if x["exit"] != 0 or y["exit"] != 0:
        if x["exit"] != y["exit"]:
            print("EXIT", x["exit"], y["exit"], cmd, "\n   ", y["stdout"].strip()[:200]); differ += 1
        else:
            ex = json.loads(x["stdout"])["error"]; ey = json.loads(y["stdout"])["error"]
            if ex != ey:
                print("ERRMSG", cmd, "\n    before:", ex, "\n    after: ", ey)
            same += 1
        continue
    jx, jy = json.loads(x["stdout"]), json.loads(y["stdout"])
    if jx == jy and json.dumps(jx) == json.dumps(jy):
        same += 1; continue
    rows_x = jx if isinstance(jx, list) else [jx]
    rows_y = jy if isinstance(jy, list) else [jy]
    if len(rows_x) == len(rows_y) and all(
            json.dumps({k: v for k, v in ry.items() if k in rx}) == json.dumps(rx) for rx, ry in zip(rows_x, rows_y)):
        extra = sorted({k for rx, ry in zip(rows_x, rows_y) for k in ry if k not in rx})
        print("EXTRA KEYS", extra, cmd); extra_only += 1; continue
    differ += 1
    print("DIFF", cmd)
    for rx, ry in zip(rows_x, rows_y):
        for k in rx:
            if k not in ry: print("   missing", k)
            elif rx[k] != ry[k]: print("   ", k, rx[k], ry[k])
        if [k for k in rx] != [k for k in ry if k in rx]: print("   order", list(rx), list(ry))
print(f"identical {same}, identical but extra keys {extra_only}, different {differ}")
