"""repaste.py README SUBSTRING...: re-run each README '$ iosizer' command containing a substring and paste its
piped output (in a scratch dir with data/ linked; earlier profile-making commands must be given too)."""
import os, subprocess, sys, tempfile
readme = sys.argv[1]; subs = sys.argv[2:]
tree = os.path.dirname(os.path.abspath(readme))
lines = open(readme).read().split("\n")
scratch = tempfile.mkdtemp(); os.symlink(os.path.join(tree, "data"), os.path.join(scratch, "data"))
env = dict(os.environ, PATH=os.path.join(tree, ".venv/bin") + ":" + os.environ["PATH"]); env.pop("COLUMNS", None)
out = []; i = 0
while i < len(lines):
    line = lines[i]
    if line.startswith("$ iosizer") and ("calibrate" in line or "extrapolate" in line):
        subprocess.run(["bash", "-c", line[2:] + " > /dev/null 2>&1"], cwd=scratch, env=env)
    if line.startswith("$ iosizer") and any(s in line for s in subs):
        out.append(line)
        text = subprocess.run(["bash", "-c", line[2:] + " | cat"], cwd=scratch, env=env, capture_output=True, text=True).stdout
        j = i + 1
        while not lines[j].startswith("```") and not lines[j].startswith("$ "):
            j += 1
        out.extend(text.rstrip("\n").split("\n"))
        print("pasted", line)
        i = j; continue
    out.append(line); i += 1
open(readme, "w").write("\n".join(out))
