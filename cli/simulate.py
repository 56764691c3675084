"""``iosizer simulate FAMILY [QUESTION]``: a discrete-event simulation beside every analytic answer.

Each command takes its question's options (the same names as the analytic
command; left out, the family's declared or shipped values) plus the run's:
``--replications N`` or ``--target-ci-pct P`` (with ``--max-seconds``),
``--seed``, ``--workers`` or ``--scheduler``. It prints per output metric the
analytic value, the simulated mean, its 95 % interval and whether the
analytic value lies inside; ``--format json`` gives a list of rows with
``metric``, ``analytic``, ``simulated``, ``ci_low``, ``ci_high``,
``within_ci``, ``replications`` (and ``gap_pct``, ``half_width_pct``,
``stopped``). A progress bar runs on stderr; stdout holds only the answer.
The work lives in :mod:`iosizer.simulate`.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Annotated, Any, Callable

import typer

from iosizer.cli.declared import DeclaredGroup, declared_group_options
from iosizer.cli.loadshare import NonCore, SharesOption, SwitchRule, parse_shares
from iosizer.cli.options import FormatOption
from iosizer.cli.output import OutputFormat, Report, emit, progress_bar
from iosizer.cli.questions import given_values

if TYPE_CHECKING:
    from iosizer.model.family import Family, Question


class SimulateGroup(DeclaredGroup):
    """``iosizer simulate``: the hand-written commands, and one per family whose question declares a hook."""

    _question = staticmethod(lambda family: _simulated_question(family))
    _command = staticmethod(lambda family, question: simulate_command(family, question))


app = typer.Typer(
    cls=SimulateGroup,  # a question with a simulate hook gets 'iosizer simulate <family>' (iosizer.cli.declared)
    help="Simulate a family's question (numpy, vectorised; Ciw or SimPy as the second engine) and compare "
         "with its analytic answer: mean, 95 % interval, inside or not.",
    no_args_is_help=True,
)
hba_app = typer.Typer(help="Shared FC ports (seed 002): simulate 'response'.", no_args_is_help=True)
app.add_typer(hba_app, name="hba")

#: Help suffix of an option whose default is the family's declared or shipped value.
DECLARED = "[declared or shipped value; see `iosizer params FAMILY`]"
COLUMNS = ["metric", "analytic", "simulated", "ci_low", "ci_high", "within_ci", "gap_pct"]


# --- the run's options, shared by every command -------------------------------------------


def _run_parameters() -> list[inspect.Parameter]:
    options: dict[str, tuple[Any, Any]] = {
        "replications": (Annotated[int | None, typer.Option(
            "--replications", help="Independent replications [20 unless --target-ci-pct].")], None),
        "target_ci_pct": (Annotated[float | None, typer.Option(
            "--target-ci-pct", help="Add replications until every targeted metric's 95 % half-width is within "
                                    "this percent of its mean.")], None),
        "max_seconds": (Annotated[float | None, typer.Option(
            "--max-seconds", help="Wall-time budget of the whole run, at most an hour, held within a replication too "
                                  "(one cut short is dropped, never counted); the answer says if it ran out first, "
                                  "and fewer than 2 replications within it is an error saying how long one takes "
                                  "[600].")], None),
        "seed": (Annotated[int, typer.Option(
            "--seed", help="Seed of the replications' independent streams (same seed, same answer).")], 0),
        "workers": (Annotated[int | None, typer.Option(
            "--workers", help="Local processes running the library engine's replications [the CPU count]; 1 runs them "
                              "here.")], None),
        "scheduler": (Annotated[str | None, typer.Option(
            "--scheduler", metavar="ADDRESS",
            help="Run the replications on this Dask scheduler (tcp://host:port; needs iosizer[cluster]).")], None),
        "engine": (Annotated[str | None, typer.Option(
            "--engine", help="numpy (every replication of a batch at once, in this process), or the system's "
                             "library, ciw or simpy, as the independent second engine [numpy where the system "
                             "vectorises and no --scheduler is given, else its library].")], None),
        "run_length": (Annotated[int | None, typer.Option(
            "--run-length", help="Customers or cycles measured per replication [the system's default].")], None),
        "output_format": (FormatOption, OutputFormat.table),
    }
    return [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default)
            for name, (annotation, default) in options.items()]


_RUN_NAMES = ("replications", "target_ci_pct", "max_seconds", "seed", "workers", "scheduler", "engine")


def simulation(family: str, question: str | None = None) -> Callable[[Callable[..., dict[str, Any]]], Callable]:
    """Make a command from a function returning the question's options; the run's options are added.

    The decorated function takes the question's options (typer parameters)
    and returns them as the keyword arguments of the family's builder in
    :mod:`iosizer.simulate.systems`.
    """

    def decorate(options_of: Callable[..., dict[str, Any]]) -> Callable:
        own = list(inspect.signature(options_of, eval_str=True).parameters.values())

        def command(**given: Any) -> None:
            run = {name: given.pop(name) for name in _RUN_NAMES}
            output_format = given.pop("output_format")
            run_length = given.pop("run_length")
            options = options_of(**given)
            if run_length is not None:
                options["run_length"] = run_length
            _simulate(family, question, options, run, output_format)

        parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own] + _run_parameters()
        command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in parameters}
        command.__name__ = options_of.__name__
        command.__qualname__ = options_of.__qualname__
        command.__doc__ = options_of.__doc__
        return command

    return decorate


def _simulate(family: str, question: str | None, options: dict[str, Any], run: dict[str, Any],
              output_format: OutputFormat) -> None:
    from iosizer.simulate import simulate

    with progress_bar(counts=True) as progress:
        task = progress.add_task(f"simulating {family}{' ' + question if question else ''}", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        result = simulate(family, question, progress=advance, **run, **options)
    rows = result.rows()
    point = [name for name, _ in result.experiment.metrics[0].point]  # a curve's input columns lead
    emit(Report(rows, rows, title=f"Simulation vs analytic: {result.experiment.title}", columns=point + COLUMNS,
                notes=result.notes()), output_format)


# --- one command per family and question ------------------------------------------------

ServiceScv = Annotated[float | None, typer.Option(
    "--service-scv", help="Squared coefficient of variation of service times at the queueing stations "
                          "(1 exponential, the model's assumption [default]; 0 constant). The analytic column "
                          "stays the exponential model, so the gap measures that assumption; where the family "
                          "corrects for it (hba, oltp, rmw: their own --service-scv) the notes give its answer.")]
ArrivalRate = Annotated[float, typer.Option("--arrival-rate", help="Arrivals per unit time.")]
ServiceRate = Annotated[float | None, typer.Option(
    "--service-rate", help="Completions per unit time of one busy server [the mmc family's shipped profile].")]
Servers = Annotated[int | None, typer.Option("--servers", help="Servers [the mmc family's shipped profile].")]


@app.command("mmc")
@simulation("mmc", "mmc")
def mmc(arrival_rate: ArrivalRate, service_rate: ServiceRate = None, servers: Servers = None) -> dict[str, Any]:
    """M/M/c: Poisson arrivals, c exponential servers, FCFS (numpy; --engine ciw)."""
    return {"arrival_rate": arrival_rate, "service_rate": service_rate, "servers": servers}


@app.command("mm1")
@simulation("mmc", "mm1")
def mm1(arrival_rate: ArrivalRate, service_rate: ServiceRate = None) -> dict[str, Any]:
    """M/M/1 (numpy; --engine ciw)."""
    return {"arrival_rate": arrival_rate, "service_rate": service_rate}


@app.command("md1")
@simulation("mmc", "md1")
def md1(arrival_rate: ArrivalRate, service_rate: ServiceRate = None) -> dict[str, Any]:
    """M/D/1: constant service times (numpy; --engine ciw)."""
    return {"arrival_rate": arrival_rate, "service_rate": service_rate}


@app.command("mg1")
@simulation("mmc", "mg1")
def mg1(arrival_rate: ArrivalRate, service_scv: ServiceScv = None, service_rate: ServiceRate = None) -> dict[str, Any]:
    """M/G/1: gamma service times of the given scv (numpy; --engine ciw)."""
    return {"arrival_rate": arrival_rate, "service_rate": service_rate, "service_scv": service_scv}


@app.command("ggc")
@simulation("mmc", "ggc")
def ggc(
    arrival_rate: ArrivalRate,
    service_rate: ServiceRate = None,
    servers: Servers = None,
    arrival_scv: Annotated[float | None, typer.Option("--arrival-scv", help="Inter-arrival scv [1].")] = None,
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """G/G/c: gamma inter-arrival and service times against Allen-Cunneen (numpy; --engine ciw)."""
    return {"arrival_rate": arrival_rate, "service_rate": service_rate, "servers": servers,
            "arrival_scv": arrival_scv, "service_scv": service_scv}


@app.command("closed-network")
@simulation("closed-network")
def closed_network(
    population: Annotated[int, typer.Option("--population", help="Jobs in the network.")],
    demand: Annotated[list[float] | None, typer.Option(
        "--demand", help="Service demand of one station, s (repeat per station) [the shipped profile's].")] = None,
    think_time: Annotated[float | None, typer.Option(
        "--think-time", help="Think time, s [the shipped profile's with its demands, else 0].")] = None,
    servers: Annotated[list[str] | None, typer.Option(
        "--servers", help="Servers per station in --demand order: a whole number or 'delay' [1 each].")] = None,
    method: Annotated[str, typer.Option(
        "--method", help="Analytic side: exact MVA or schweitzer (Bard-Schweitzer, an approximation).")] = "exact",
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """A single-class closed network against MVA (numpy; --engine simpy)."""
    from iosizer.cli.params import parse_servers
    from iosizer.errors import InputError

    if (servers or think_time is not None) and not demand:
        raise InputError("--servers and --think-time go with --demand (the shipped profile has its own)")
    return {"population": population, "demands": demand or None, "think_time": think_time,
            "servers": parse_servers(servers) if servers else None, "method": method, "service_scv": service_scv}


@app.command("oltp")
@simulation("oltp")
def oltp(
    added_latency_ns: Annotated[float, typer.Option("--added-latency-ns", help="Added round-trip latency, ns.")],
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """The TPC-C-like batch network of seed 000 with and without added latency (numpy; --engine simpy)."""
    return {"added_latency_ns": added_latency_ns, "service_scv": service_scv}


@app.command("dma")
@simulation("dma")
def dma(
    device: Annotated[str, typer.Option("--device", help="A device of seed 000 table 4-1: e1000 or bcm5700.")],
    added_latency_ns: Annotated[float, typer.Option("--added-latency-ns", help="Added round-trip latency, ns.")],
    service_scv: Annotated[float | None, typer.Option(
        "--service-scv", help="Variability of the local issue work [0: constant, as the model declares].")] = None,
) -> dict[str, Any]:
    """A DMA engine's read bursts under added latency (numpy; --engine simpy)."""
    return {"device": device, "added_latency_ns": added_latency_ns, "service_scv": service_scv}


@app.command("rmw")
@simulation("rmw")
def rmw(
    transfer_bytes: Annotated[int, typer.Option("--transfer-bytes", help="Bytes per write transfer.")] = 520,
    lanes: Annotated[int, typer.Option("--lanes", help="Total lanes of x8 ports.")] = 8,
    mps: Annotated[int | None, typer.Option("--mps", help=f"Max Payload Size, bytes {DECLARED}.")] = None,
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """PCIe ports' posted-write credit loops sharing the RMW unit (seed 001; numpy; --engine simpy)."""
    return {"transfer_bytes": transfer_bytes, "lanes": lanes, "mps_bytes": mps, "service_scv": service_scv}


@hba_app.command("response")
@simulation("hba", "response")
def hba_response(
    threads: Annotated[int, typer.Option("--threads", help="Outstanding I/Os on the virtual port.")] = 16,
    mode: Annotated[str | None, typer.Option("--mode", help=f"shared or occupancy {DECLARED}.")] = None,
    block_bytes: Annotated[float | None, typer.Option("--block-bytes", help=f"I/O size, bytes {DECLARED}.")] = None,
    storage_us: Annotated[float | None, typer.Option(
        "--storage-us", help=f"Storage round trip per I/O, us (assumed) {DECLARED}.")] = None,
    speed: Annotated[str | None, typer.Option("--port", help="FC speed profile: 8GFC, 16GFC or 32GFC.")] = None,
    cores: Annotated[int | None, typer.Option("--cores", help=f"HBA cores per port {DECLARED}.")] = None,
    core_iops: Annotated[float | None, typer.Option("--core-iops", help=f"I/Os per second per core {DECLARED}.")] = None,
    link_mbps: Annotated[float | None, typer.Option("--link-mbps", help="Usable link rate, MB/s.")] = None,
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """One virtual port's response against outstanding I/Os (seed 002 sec 3.2; numpy; --engine simpy)."""
    return {"threads": threads, "mode": mode, "block_bytes": block_bytes, "storage_us": storage_us, "speed": speed,
            "cores": cores, "core_iops": core_iops, "link_mbps": link_mbps, "service_scv": service_scv}


@hba_app.command("isolation")
def hba_isolation() -> None:
    """Not simulated: a fluid allocation of fixed capacities (exits 2 and says so)."""
    from iosizer.simulate.systems import build

    build("hba", "isolation")


@app.command("loadshare")
@simulation("loadshare")
def loadshare(
    scenario: Annotated[str | None, typer.Option(
        "--scenario", help=f"one-port, system or skew (seed 003 tables 2-4) {DECLARED}.")] = None,
    port_share: Annotated[list[float] | None, typer.Option(
        "--port-share", help="Load share of one port, any positive number (repeat per port; normalised), "
                             "instead of a scenario's mix; --cores then defaults to the declared count.")] = None,
    shares: SharesOption = None,
    policy: Annotated[str | None, typer.Option(
        "--policy", help=f"shared, exclusive, one-stage or multi-stage {DECLARED}.")] = None,
    load_fraction: Annotated[float | None, typer.Option(
        "--load-fraction", help="Total load as a fraction of the policy's maximum throughput.")] = None,
    load_cores: Annotated[float | None, typer.Option(
        "--load-cores", help="Total load in cores of work (instead of --load-fraction).")] = None,
    cores: Annotated[int | None, typer.Option("--cores", help="Controller cores [the scenario's].")] = None,
    comm_overhead_pct: Annotated[float | None, typer.Option(
        "--comm-overhead-pct", help=f"Hand-off overhead, % of one I/O (assumed) {DECLARED}.")] = None,
    threshold: Annotated[float | None, typer.Option(
        "--threshold", help=f"Switching threshold per serving core {DECLARED}.")] = None,
    non_core_pct: NonCore = None,
    switch_rule: SwitchRule = None,
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """A load-sharing policy's mean response at one load, for a scenario of seed 003 or any port mix (Ciw)."""
    listed = parse_shares(shares)
    if listed is not None and port_share:
        from iosizer.errors import InputError

        raise InputError("give --shares or --port-share, not both")
    return {"scenario": scenario, "port_shares": listed or port_share or None, "policy": policy, "load_fraction": load_fraction, "load_cores": load_cores,
            "cores": cores, "comm_overhead_pct": comm_overhead_pct, "threshold": threshold,
            "non_core_pct": non_core_pct, "switch_rule": switch_rule, "service_scv": service_scv}


@app.command("replication")
@simulation("replication")
def replication(
    link: Annotated[str | None, typer.Option("--link", help=f"1g, 10g, ipoib56 or local {DECLARED}.")] = None,
    block_kib: Annotated[float | None, typer.Option("--block-kib", help=f"Block size, KiB {DECLARED}.")] = None,
    outstanding: Annotated[int | None, typer.Option("--outstanding", help=f"Writes in flight {DECLARED}.")] = None,
    service_scv: ServiceScv = None,
) -> dict[str, Any]:
    """Writes replicated to a peer's flash over an interconnect (seed 004; numpy; --engine simpy)."""
    return {"link": link, "block_kib": block_kib, "outstanding": outstanding, "service_scv": service_scv}


# --- iosizer simulate <family>: generated from a question's simulate hook ----------------------


def simulate_command(family: "Family", question: "Question") -> Callable[..., None]:
    """The typer command ``iosizer simulate <family>`` of the question's ``simulate`` hook."""
    
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = declared_group_options(family, question)
    params = [p for p in params if p.name != "cpu_speed"]
    if question.percentiles is not None:
        params.append(inspect.Parameter("percentile", keyword, default=None, annotation=Annotated[
            list[float] | None, typer.Option("--percentile", metavar="P",
                                             help="Also the P-th percentile, simulated as the empirical "
                                                  "percentile of each replication's records (repeatable).")]))
    params += _run_parameters()

    def command(**given: Any) -> None:
        from iosizer.cli.output import Report, emit, progress_bar
        from iosizer.simulate.declared import simulate_declared

        run = {name: given.pop(name) for name in _RUN_NAMES}
        output_format = given.pop("output_format")
        run_length = given.pop("run_length")
        percentiles = given.pop("percentile", None)
        values, profile = given_values(family, question, given)
        with progress_bar(counts=True) as progress:
            task = progress.add_task(f"simulating {family.name} {question.command}", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            result = simulate_declared(family.name, question.command, profile, percentiles=percentiles,
                                       run_length=run_length, progress=advance, **run, **values)
        rows = result.rows()
        point = [name for name, _ in result.experiment.metrics[0].point]
        emit(Report(rows, rows, title=f"Simulation vs analytic: {result.experiment.title}",
                    columns=point + COLUMNS, notes=result.notes()), output_format)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "simulate_" + family.name.replace("-", "_")
    command.__doc__ = (f"{question.summary[:1].upper()}{question.summary[1:]}: simulated (the question's "
                       "declared simulate hook) beside the analytic answer, with 95 % replication intervals.")
    return command


def _simulated_question(family: Any) -> Any:
    from iosizer.simulate.declared import simulated_question

    return simulated_question(family)


# --- iosizer report --simulate ------------------------------------------------------------


class SimulatedSection:
    """The report's "Analytic vs simulation" section: JSON data and document blocks."""

    def __init__(self, data: list[dict[str, Any]], blocks: list[tuple]) -> None:
        self.data = data
        self.blocks = blocks


def report_simulations(progress: Callable[[str], None] | None = None) -> SimulatedSection:
    """Every family simulated at three load levels (:mod:`iosizer.simulate.comparison`), as report blocks."""
    from iosizer.cli.output import format_number
    from iosizer.simulate.comparison import REPORT_REPLICATIONS, compare

    tables = compare(progress=progress)
    blocks: list[tuple] = [
        ("h2", "Analytic vs simulation"),
        ("p", f"Each family's shipped configuration simulated at three loads (low, knee, near saturation): "
              f"{REPORT_REPLICATIONS} independent replications per point (seed 0), the simulated mean with its 95 % "
              "interval, and the analytic value's error gap_pct = (analytic - simulated) / simulated x 100. "
              "'inside' is **no** where the analytic value lies outside the simulated interval: the approximation's "
              "error exceeds the simulation's own uncertainty. "
              "Exact models (Erlang C, exact MVA) belong inside; see `iosizer simulate --help`."),
    ]
    data = []
    for table in tables:
        blocks.append(("h3", f"{table.family}: {table.analytic_method} against {table.simulator}"))
        head = ["level", "load", "metric", "analytic", "simulated", "95 % interval", "inside", "gap_pct"]
        blocks.append(("table", head, [
            [r["level"], r["load"], r["metric"], format_number(r["analytic"]), format_number(r["simulated"]),
             f"[{format_number(r['ci_low'])}, {format_number(r['ci_high'])}]", "yes" if r["within_ci"] else "**no**",
             "" if r["gap_pct"] is None else f"{r['gap_pct']:+.2f}"] for r in table.rows]))
        data.append({"family": table.family, "analytic_method": table.analytic_method,
                     "simulator": table.simulator, "rows": table.rows})
    return SimulatedSection(data, blocks)
