"""A toy family for the generated scenario table's declared rows (Question.table, table_keys,
table_defaults, TableRow.derive): toy_sweep_family's link rates, compared medium against medium."""

from __future__ import annotations

from tests.calibration import toy_sweep_family as sweep

from iosizer.model.family import Family, Question, TableRow


def _table(records, context):
    rows = []
    for i, record in enumerate(records):
        note = f"{record['blocks']} blocks" + (f"; {context['source']}" if context.get("source") else "")
        rows.append(TableRow.of(record, "rate_per_s", f"rate over {record['medium']}", "1/s", note))
        if i and record["blocks"] == records[0]["blocks"]:
            def gain(at, i=i):
                return 100.0 * (at[i]["rate_per_s"] / at[0]["rate_per_s"] - 1.0)

            rows.append(TableRow(f"gain of {record['medium']}", gain(records), "%", "over the first", derive=gain))
    return rows


FAMILIES = (Family(
    name="toy-table", summary="a toy link rate for the scenario table's declared rows", source="tests",
    parameters=sweep.FAMILIES[0].parameters, columns=sweep.FAMILIES[0].columns, solve=sweep._rate,
    fit=sweep.FAMILIES[0].fit, service_time="deterministic",
    questions=(Question(
        "toy-table", "the link's rate for each medium", inputs=sweep.FAMILIES[0].questions[0].inputs,
        outputs=sweep.FAMILIES[0].questions[0].outputs, solve=sweep._rate, sweeps=("medium",), always_list=True,
        table=_table, table_keys={"medium": ("mediums",)}, table_defaults={"medium": ("copper", "fibre")}),),
),)
