"""Run every README command and a list of option combinations; store stdout+exit of each (JSON where asked).
usage: python capture.py WORKTREE OUT.json [filter-substring] [--combos FILE (default combos.txt, beside this file)]
       [--combos-only (not the README's commands)]"""
import json, os, re, subprocess, sys, tempfile, shlex
args = sys.argv[1:]
combos = "combos.txt"
if "--combos" in args:
    at = args.index("--combos")
    combos = args[at + 1]
    del args[at:at + 2]
only = "--combos-only" in args
if only:
    args.remove("--combos-only")
tree, out = args[0], args[1]
filt = args[2] if len(args) > 2 else ""
readme = open(os.path.join(tree, "README.md")).read().splitlines()
cmds = [] if only else [l[2:] for l in readme if l.startswith("$ iosizer ")]
extra = [l.strip() for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), combos)) if l.strip() and not l.startswith("#")]
scratch = tempfile.mkdtemp()
os.symlink(os.path.join(tree, "data"), os.path.join(scratch, "data"))
env = dict(os.environ, PATH=os.path.join(tree, ".venv/bin") + ":" + os.environ["PATH"])
env.pop("COLUMNS", None)
results = {}
def run(c):
    p = subprocess.run(["bash", "-c", c + " | cat"], cwd=scratch, env=env, capture_output=True, text=True)
    return p.stdout
for c in cmds:
    results["R " + c] = run(c)
    if "--format" not in c and "|" not in c and ";" not in c and ">" not in c and "calibrate" not in c and "serve" not in c:
        results["RJ " + c] = run(c + " --format json")
for c in extra:
    if filt and filt not in c and "calibrate" not in c:
        continue
    results["X " + c] = run(c + " 2>&1; echo \"exit $?\"")
json.dump(results, open(out, "w"), indent=1)
print(len(results), "captured")
