"""Capture the served routes' answers (status, body) with FastAPI's TestClient, for before/after comparisons.

usage: python serve_capture.py OUT.json   (run in the worktree's venv; compare two captures with compare_strict.py)

Every reflected command (the catalogue's, declared questions aside) is asked with its defaults, the page's
starting inputs, a value it refuses and a key it does not know; plus openapi.json, the catalogue, the
families' routes and one calibration upload. Simulations are asked small (2 replications, seed 1).
"""
import json
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from iosizer.serve.app import create_app
from iosizer.serve.examples import STARTING_INPUTS


def main():
    out = sys.argv[1]
    results = {}
    app = create_app(workers=1, heavy_workers=1, jobs=1, allowed_hosts=["testserver"])
    reflected = {" ".join(path) for path in app.state.server.commands}
    with TestClient(app) as client:
        def keep(name, response):
            try:
                body = response.json()
            except ValueError:
                body = response.text
            results[name] = [response.status_code, body]

        keep("GET /openapi.json", client.get("/openapi.json"))
        catalogue = client.get("/api/catalogue")
        keep("GET /api/catalogue", catalogue)
        keep("GET /api/families", client.get("/api/families"))
        for family in ("hba", "latency", "mmc", "nosuch"):
            keep(f"GET /api/families/{family}/parameters", client.get(f"/api/families/{family}/parameters"))
        data = Path(__file__).resolve().parents[2] / "data" / "examples"
        example = sorted(data.glob("*mmc*.csv")) or sorted(data.glob("*.csv"))
        if example:
            files = {"file": (example[0].name, example[0].read_bytes(), "text/csv")}
            keep("POST /api/calibrate/mmc", client.post("/api/calibrate/mmc", files=files, headers={"X-Iosizer": "1"}))
            keep("POST /api/calibrate/mmc bad", client.post("/api/calibrate/mmc", files=files, data={"nope": "1"},
                                                            headers={"X-Iosizer": "1"}))
        # extrapolate with profile documents inline (a shipped profile, twice: one CPU; a bad document)
        import iosizer

        shipped = json.loads(iosizer.family("mmc").shipped().model_dump_json())
        shipped.pop("created_at", None)
        for label, body in {"one": {"profiles": [shipped], "cpu_speed": 1.5},
                            "named": {"profiles": [shipped], "cpu_speed": 1.5, "cpu_name": "next"},
                            "two": {"profiles": [shipped, shipped], "cpu_speed": 2},
                            "bad": {"profiles": [{"model": "mmc"}], "cpu_speed": 2}}.items():
            keep(f"POST /api/extrapolate {label}", client.post("/api/extrapolate", json=body))
            keep(f"POST /api/extrapolate?view=page {label}", client.post("/api/extrapolate?view=page", json=body))
        for command in catalogue.json()["commands"]:
            url, path = command["url"], command["command"]
            if path not in reflected or "{" in url:
                continue
            simulate = path.startswith("simulate")
            small = {"replications": 2, "seed": 1} if simulate else {}
            query = "?wait=true" if simulate else ""
            bodies = {"defaults": dict(small)}
            if path in STARTING_INPUTS:
                bodies["starting"] = {**STARTING_INPUTS[path], **small}
            numbers = [f for f in command["fields"] if f["kind"] in ("number", "integer") and not f["many"]]
            if numbers:
                bodies["negative " + numbers[0]["key"]] = {**small, numbers[0]["key"]: -1}
                bodies["text " + numbers[0]["key"]] = {**small, numbers[0]["key"]: "x"}
            bodies["unknown key"] = {**small, "no_such_key": 1}
            for label, body in bodies.items():
                if path in ("report",) and label != "unknown key":
                    body = {**body, "check": True}
                keep(f"POST {url} {label}", client.post(url + query, json=body))
            if not simulate:
                keep(f"POST {url}?view=page", client.post(url + "?view=page", json=bodies.get("starting", {})))
    json.dump(results, open(out, "w"), indent=1, sort_keys=True)
    print(len(results), "captured")


if __name__ == "__main__":  # the workers are spawned: they import this file
    main()
