"""Starting inputs of the what-if page: the README tour's, by command.

A question opens with these values filled in (its options' own defaults
fill the rest), so the page answers something at once. Only options a
command has no default for need to be here; a command missing from this
table opens with its defaults, and an entry for a command the CLI does not
have is ignored. The serve tests check that each of these answers over
HTTP exactly what the CLI prints.
"""

from __future__ import annotations

from typing import Any

STARTING_INPUTS: dict[str, dict[str, Any]] = {
    "queue mm1": {"arrival_rate": "0.1:0.9:0.05", "service_rate_per_s": 1},
    "queue mmc": {"arrival_rate": "0.4:3.8:0.2", "service_rate_per_s": 1, "servers": 4},
    "queue mg1": {"arrival_rate": "0.1:0.9:0.05", "service_rate_per_s": 1, "service_scv": 0.5},
    "queue md1": {"arrival_rate": "0.1:0.9:0.05", "service_rate_per_s": 1},
    "queue ggc": {"arrival_rate": "0.4:3.8:0.2", "service_rate_per_s": 1, "servers": 4},
    "queue erlang": {"servers": 4, "offered_load": 3.2},
    "queue mva": {"demand_s": [0.005, 0.003, 0.002], "think_time_s": 0.1, "population": 100},
    "latency dma": {"device": "bcm5700", "added_latency_ns": "0:2100:150"},
    "latency oltp": {"added_latency_ns": "0:2100:150"},
    "latency budget": {"budget_pct": 5, "device": "bcm5700"},
    "latency tiers": {"budget_pct": 5},
    "pcie pattern": {"transfer_bytes": "520"},
    "pcie rmw": {"pattern": "520", "lanes": "8,16,24,32"},
    "hba isolation": {"block_kib": 4, "mode": "both", "lpar2_offered_iops": "0:300000:25000"},
    "hba response": {"threads": "1:32:1"},
    "loadshare curve": {"scenario": "skew", "policy": "multi-stage"},
    "loadshare compare": {"scenario": "skew"},
    "replication": {"link": "1g,10g,ipoib56", "block_kib": "4:256"},
    "run": {"scenario": "shared_fc_storage"},
    # Sizing (issue 16): inert until the ``size`` commands are in the CLI.
    "size servers": {"arrival_rate": "0.5:3.5:0.25", "service_rate": 1, "target_response_s": 2},
    "size load": {"target_response_s": 0.5, "demand": [0.005, 0.003, 0.002], "think_time": 0.1},
    "size latency": {"budget_pct": 5},
    "size lanes": {"budget_pct": 10},
    "size hba": {"tenant_iops": "100000,100000", "target_response_us": 200},
    "size cores": {"load_cores": 2, "target_response": 3},
    "size outstanding": {"target_iops": 15000, "link": "10g"},
}

#: Starting inputs of a question opened with a calibrated profile: the profile
#: supplies what the plain starting inputs set by hand (service rate, servers,
#: demands), and the loads are those of the shipped example data.
STARTING_WITH_PROFILE: dict[str, dict[str, Any]] = {
    "queue mmc": {"arrival_rate": "200:3800:100"},
    "queue mm1": {"arrival_rate": "50:950:50"},
    "queue mva": {"population": 60},
    "latency dma": {"added_latency_ns": "0:2100:150"},
    "latency oltp": {"added_latency_ns": "0:2100:150"},
    "latency budget": {"budget_pct": 5},
    "pcie rmw": {"pattern": "520", "lanes": "8,16,24,32"},
}
