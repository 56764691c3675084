"""Capture every line of a command list (stdout+stderr and exit status) run in a scratch folder.
usage: python capture.py WORKTREE LIST OUT.json"""
import json, os, subprocess, sys, tempfile
tree, listing, out = sys.argv[1:4]
cmds = [l.strip() for l in open(listing) if l.strip() and not l.startswith("#")]
scratch = tempfile.mkdtemp()
os.symlink(os.path.join(tree, "data"), os.path.join(scratch, "data"))
env = dict(os.environ, PATH=os.path.join(tree, ".venv/bin") + ":" + os.environ["PATH"])
env.pop("COLUMNS", None)
results = {}
for c in cmds:
    p = subprocess.run(["bash", "-c", c + " 2>&1 | cat; echo \"exit ${PIPESTATUS[0]}\""], cwd=scratch, env=env,
                       capture_output=True, text=True)
    results[c] = p.stdout
json.dump(results, open(out, "w"), indent=1)
print(len(results), "captured")
