"""Capture calibrate's and report's answers through iosizer.ask and the HTTP routes (FastAPI's TestClient).

usage: python calrep_capture.py WORKTREE OUT.json   (in the worktree's venv; compare two captures with ==)
A profile's created_at is left out (it is the time of the run); errors are kept as (class, message).
"""
import json
import os
import sys
import tempfile
from pathlib import Path


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "created_at"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def main():
    tree, out = Path(sys.argv[1]), sys.argv[2]
    examples = tree / "data" / "examples"
    results = {}
    import iosizer

    scratch = Path(tempfile.mkdtemp())
    os.chdir(scratch)

    def asked(name, *args, **kwargs):
        try:
            answer = iosizer.ask(*args, **kwargs)
            results["ask " + name] = ["ok", _plain(json.loads(json.dumps(answer))), repr(answer)[:4000]]
        except Exception as error:  # noqa: BLE001
            results["ask " + name] = ["error", type(error).__name__, str(error)]

    csv = str(examples / "hba_core_response.csv")
    asked("mmc", "calibrate", "mmc", csv, servers=4, cpu_speed=1)
    asked("mmc named", "calibrate", model="mmc", data=[csv], servers="4", cpu_name="old")
    asked("mmc output", "calibrate", "mmc", csv, servers=4, output="p.json")
    results["ask mmc output file"] = _plain(json.loads(Path("p.json").read_text()))
    asked("closed", "calibrate", "closed-network", str(examples / "load_test.csv"), stations=3)
    asked("closed set", "calibrate", "closed-network", str(examples / "load_test.csv"), stations=2,
          set=["servers=delay,4"])
    asked("device fio", "calibrate", "device", *sorted(str(p) for p in (examples / "device").glob("qd*.json")))
    asked("device fio p99", "calibrate", "device", str(examples / "device" / "qd08_run1.json"),
          str(examples / "device" / "qd32_run1.json"), fit_percentile=[99], verbose=True)
    asked("fio_randread", "calibrate", "mmc", str(examples / "fio_randread.json"))
    asked("columns", "calibrate", "hba", columns=True)
    asked("plot", "calibrate", "mmc", csv, servers=4, plot="fit.png")
    results["ask plot drawn"] = Path("fit.png").exists()
    asked("no data", "calibrate", "mmc")
    asked("no family", "calibrate")
    asked("bad family", "calibrate", "nosuch", csv)
    asked("bad servers", "calibrate", "mmc", csv, servers="four")
    asked("bad servers 0", "calibrate", "mmc", csv, servers=0)
    asked("bad key", "calibrate", "mmc", csv, nope=1)
    asked("missing file", "calibrate", "mmc", "missing.csv")
    asked("bad output", "calibrate", "mmc", csv, output="no/such/x.json")
    asked("bad set", "calibrate", "mmc", csv, set="servers")
    asked("report", "report", output_dir="rep")
    asked("report check", "report", check=True, output_dir="rep")
    asked("report bad dir", "report", output_dir="no/such/rep")

    from fastapi.testclient import TestClient

    from iosizer.serve.app import create_app

    app = create_app(workers=1, heavy_workers=1, jobs=1, allowed_hosts=["testserver"])
    with TestClient(app) as client:
        def keep(name, response):
            try:
                body = _plain(response.json())
            except ValueError:
                body = response.text
            results["http " + name] = [response.status_code, response.headers.get("x-iosizer-exit"), body]

        def upload(family, paths, view="", **options):
            files = [("file", (p.name, p.read_bytes(), "application/octet-stream")) for p in paths]
            return client.post(f"/api/calibrate/{family}{view}", files=files,
                               data={k: v for k, v in options.items()}, headers={"X-Iosizer": "1"})

        hba_core = examples / "hba_core_response.csv"
        keep("mmc", upload("mmc", [hba_core], servers="4", cpu_speed="1"))
        keep("mmc page", upload("mmc", [hba_core], "?view=page", servers="4"))
        keep("closed", upload("closed-network", [examples / "load_test.csv"], stations="3"))
        keep("closed set", upload("closed-network", [examples / "load_test.csv"], stations="2",
                                  set=["servers=delay,4"]))
        keep("device fio", upload("device", sorted((examples / "device").glob("qd0*_run1.json"))))
        keep("device fio p", upload("device", [examples / "device" / "qd08_run1.json"], fit_percentile=["99"]))
        keep("fio_randread", upload("mmc", [examples / "fio_randread.json"]))
        keep("hba", upload("hba", [examples / "hba.csv"]))
        keep("columns", upload("hba", [examples / "hba.csv"], columns="true"))
        keep("bad servers", upload("mmc", [hba_core], servers="four"))
        keep("bad servers 0", upload("mmc", [hba_core], servers="0"))
        keep("bad key", upload("mmc", [hba_core], nope="1"))
        keep("bad family", upload("nosuch", [hba_core]))
        keep("bad data", upload("mmc", [examples / "dma.csv"]))
        keep("bad cpu speed", upload("mmc", [hba_core], cpu_speed="-1"))
        keep("no file", client.post("/api/calibrate/mmc", files={"servers": (None, "4")}, headers={"X-Iosizer": "1"}))
        keep("report", client.post("/api/report", json={}))
        keep("report check", client.post("/api/report", json={"check": True}))
        keep("report page", client.post("/api/report?view=page", json={}))
        keep("report bad", client.post("/api/report", json={"output_dir": "x"}))
        keep("report bad key", client.post("/api/report", json={"nope": 1}))
        catalogue = client.get("/api/catalogue").json()
        results["catalogue calibrate"] = catalogue.get("calibrate")
        results["catalogue report"] = [c for c in catalogue["commands"] if c["command"] in ("report", "calibrate")]
        results["catalogue not served"] = catalogue.get("not_served")
        schema = client.get("/openapi.json").json()
        results["openapi calibrate"] = schema["paths"]["/api/calibrate/{family}"]
        results["openapi report"] = schema["paths"]["/api/report"]
        results["openapi models"] = {k: v for k, v in schema["components"]["schemas"].items()
                                     if k.startswith(("Calibrate", "Report"))}
    json.dump(results, open(out, "w"), indent=1, sort_keys=True)
    print(len(results), "captured")


if __name__ == "__main__":
    main()
