import re
def sub(path, old, new, count=1):
    s = open(path).read()
    assert old in s, (path, old[:80])
    s = s.replace(old, new, count)
    open(path, "w").write(s)

# --- declaration: the parameters a question takes, the settings it fixes
sub("model/family.py", '''    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    shipped: bool = True
''', '''    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    shipped: bool = True
    #: The family's parameters and settings the question takes as options (None: every one).
    takes: tuple[str, ...] | None = None
    #: Settings the question fixes (an M/M/1 queue is the mmc family's with one server).
    fixed: Mapping[str, Any] = field(default_factory=dict)

    def taken(self, specs: "tuple[ParameterSpec, ...]") -> "tuple[ParameterSpec, ...]":
        """The declarations of the parameters and settings the question takes as options."""
        return tuple(s for s in specs if (self.takes is None or s.name in self.takes) and s.name not in self.fixed)
''')
sub("model/family.py", '''    - a note may be a callable''', '''    - ``takes``: the family's parameters and settings offered as options (None: all);
      ``fixed``: settings the question fixes (``{"servers": 1}``);
    - a note may be a callable''')
sub("calibration/questions.py", '''    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)''', '''    changes = dict(params) if isinstance(params, Mapping) else {}
    changes.update(given)
    changes.update(asked.fixed)''')
sub("calibration/questions.py", '''    for spec in declaration(family_name).parameters:
        if changes.get(spec.name) is None''', '''    for spec in asked.taken(declaration(family_name).parameters):
        if changes.get(spec.name) is None''')
sub("cli/questions.py", '''    for spec in family.parameters:
        if spec.kind == "setting":''', '''    for spec in question.taken(family.parameters):
        if spec.kind == "setting":''')
sub("serve/questions.py", '''    for spec in family.parameters:
        kind: Any''', '''    for spec in question.taken(family.parameters):
        kind: Any''')

# --- the questions
sub("model/queueing.py", '''def _percentile_note(values, outputs):
    return MMC_PERCENTILE_NOTE if any(k.startswith("wait_p") for k in outputs) else None
''', '''def _percentile_note(values, outputs):
    return MMC_PERCENTILE_NOTE if any(k.startswith("wait_p") for k in outputs) else None


#: How ``--percentile`` of an M/D/1 queue is computed.
MD1_PERCENTILE_NOTE = ("wait_pP/response_pP: exact M/D/c percentiles (Crommelin's distribution of the wait, "
                       "response = wait + the constant service; see iosizer.model.mdc)")


def _queue_md1(values, inputs):
    """``iosizer queue md1``: Pollaczek-Khinchine with constant service, at each arrival rate."""
    solved = md1(inputs["arrival_rate"], values["service_rate_per_s"])
    return {f.name: np.asarray(getattr(solved, f.name), dtype=np.float64) for f in fields(solved)}


def _queue_md1_percentiles(values, inputs, percentiles):
    from iosizer.model.percentiles import md1_percentiles

    return md1_percentiles(inputs["arrival_rate"], values["service_rate_per_s"], percentiles)


def _md1_note(values, outputs):
    return MD1_PERCENTILE_NOTE if any(k.startswith("wait_p") for k in outputs) else None


def _open_queue_question(command, summary, solve, percentiles, note, **declared):
    """An open queue of the mmc family's service rate: its arrival rate swept, the six measures out."""
    return Question(
        command, summary,
        inputs=(Input("arrival_rate", "1/t", (0.0, math.inf), description="arrivals per unit time"),),
        outputs=(Output("utilization", "1", "busy share of each server"),
                 Output("p_wait", "1", "probability an arrival waits"),
                 Output("mean_wait", "t", "mean time in queue"),
                 Output("mean_response", "t", "mean wait + service", measured="mean_response_s"),
                 Output("mean_queue_length", "jobs", "mean number waiting"),
                 Output("mean_in_system", "jobs", "mean number waiting or in service")),
        solve=solve, percentiles=percentiles, notes=(QUEUE_NOTE, note),
        plot=Plot("arrival_rate", ("mean_response",)),
        aliases={"service_rate_per_s": ("service_rate",)}, shipped=False, **declared)
''')
sub("model/queueing.py", '''            Question("queue mmc", "M/M/c: c servers sharing one queue (Erlang C); --percentile exact",
                     inputs=(Input("arrival_rate", "1/t", (0.0, math.inf), description="arrivals per unit time"),),
                     outputs=(Output("utilization", "1", "busy share of each server"),
                              Output("p_wait", "1", "probability an arrival waits (Erlang C)"),
                              Output("mean_wait", "t", "mean time in queue"),
                              Output("mean_response", "t", "mean wait + service", measured="mean_response_s"),
                              Output("mean_queue_length", "jobs", "mean number waiting"),
                              Output("mean_in_system", "jobs", "mean number waiting or in service")),
                     solve=_queue_mmc, percentiles=_queue_mmc_percentiles,
                     notes=(QUEUE_NOTE, _percentile_note),
                     plot=Plot("arrival_rate", ("mean_response",)),
                     aliases={"service_rate_per_s": ("service_rate",)}, shipped=False),''', '''            _open_queue_question("queue mmc", "M/M/c: c servers sharing one queue (Erlang C); --percentile exact",
                                 _queue_mmc, _queue_mmc_percentiles, _percentile_note),
            _open_queue_question("queue mm1", "M/M/1: one server, Poisson arrivals, exponential service; "
                                 "--percentile exact", _queue_mmc, _queue_mmc_percentiles, _percentile_note,
                                 fixed={"servers": 1}),
            _open_queue_question("queue md1", "M/D/1: one server, constant service time; --percentile exact "
                                 "(Crommelin's M/D/1 waiting-time distribution)", _queue_md1,
                                 _queue_md1_percentiles, _md1_note, fixed={"servers": 1}),''')
# --- the hand-wired commands go
s = open("cli/queue.py").read()
for name, nxt in (("mm1", "mg1"), ("md1", "ggc")):
    a = s.index(f"@app.command()\ndef {name}(")
    b = s.index(f"@app.command()\ndef {nxt}(")
    s = s[:a] + s[b:]
open("cli/queue.py", "w").write(s)
