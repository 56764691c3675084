"""Capture stdout+stderr+exit of each command line of a list (run from a scratch dir holding the profiles).
usage: python capture_list.py LIST OUT.json [SCRATCH]"""
import json, os, subprocess, sys
lst, out = sys.argv[1], sys.argv[2]
scratch = sys.argv[3] if len(sys.argv) > 3 else "/tmp/qopen"
env = dict(os.environ); env.pop("COLUMNS", None)
results = {}
for line in open(lst):
    c = line.strip()
    if not c or c.startswith("#"):
        continue
    p = subprocess.run(["bash", "-c", c + " | cat; exit ${PIPESTATUS[0]}"], cwd=scratch, env=env,
                       capture_output=True, text=True)
    results[c] = {"stdout": p.stdout, "stderr": p.stderr, "exit": p.returncode}
json.dump(results, open(out, "w"), indent=1)
print(len(results), "captured")
