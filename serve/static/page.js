// The planner's page: my system (a profile), what if (a family's questions), compare (a pinned answer),
// size (the family's targets). Forms come from GET /api/catalogue (the CLI's commands and the families'
// declarations); answers from POST /api/<command> (?view=page for a CLI command).
"use strict";

const state = {
  catalogue: null,
  commands: new Map(),   // "queue mmc" -> command description
  family: null,          // the family's catalogue entry
  command: null,         // the question shown
  profile: null,         // {family, doc, label, filename, measured: {column: {x, points}}}; null: the shipped one
  answer: null,          // the answer shown: {command, body, rows, columns, data, xKey, yKeys, seriesKeys}
  pinned: null,          // an answer kept to compare against
  controller: null,      // aborts the request in flight when an input changes
  job: null,             // the simulation job in flight (its url)
  timer: null,
  sequence: 0,
  chart: null,
  figures: [],
  fitCharts: [],
};

const $ = (id) => document.getElementById(id);
const COLORS = ["#1f6fb2", "#d1495b", "#2e933c", "#edae49", "#7b4fa8", "#00798c", "#8c564b", "#e377c2"];
const HIDDEN_FIELDS = new Set(["profile", "profiles", "rows", "columns", "format", "verbose", "plot"]);
const DEBOUNCE_MS = 300;

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

// --- numbers and units ------------------------------------------------------------

function formatValue(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return String(value);
    if (Number.isInteger(value)) return Math.abs(value) >= 1e4 ? value.toLocaleString("en-US") : String(value);
    const size = Math.abs(value);
    if (size >= 1e7 || size < 1e-4) return value.toExponential(5).replace(/\.?0+e/, "e");
    return Number(value.toPrecision(6)).toLocaleString("en-US", { maximumSignificantDigits: 6 });
  }
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

const BAND_SUFFIXES = [["_ci_low", "_ci_high"], ["_low", "_high"]];

function isBandKey(key) {
  return BAND_SUFFIXES.some(([low, high]) => key.endsWith(low) || key.endsWith(high));
}

function bandKeys(row, key) {
  for (const [low, high] of BAND_SUFFIXES) if (key + low in row && key + high in row) return [key + low, key + high];
  if (key === "simulated" && "ci_low" in row && "ci_high" in row) return ["ci_low", "ci_high"];  // a simulation's interval
  return null;
}

// A name's unit: the declaration's where the question declares it, else its suffix (iosizer.units).
function unitOf(key, command = state.command) {
  if (!key) return null;
  if (command && command.declared) {
    for (const spec of [...command.inputs, ...command.outputs]) if (spec.name === key) return usable(ofRates(spec.unit));
  }
  if (command) {
    const field = command.fields.find((f) => f.key === key);
    if (field && field.unit) return field.unit;
  }
  // The family's declared questions name the units of their inputs and outputs (a sizing answer's too).
  for (const other of state.catalogue.commands) {
    if (!other.declared || !state.family || other.group !== state.family.name) continue;
    const spec = [...other.inputs, ...other.outputs].find((s) => s.name === key);
    if (spec) return usable(ofRates(spec.unit));
  }
  if (/(^|_)iops$/.test(key)) return "IOPS";
  const percentile = key.match(/_p\d+(_\d+)?(_[a-z]+)$/);  // latency_p99_us: the unit after the percentile
  if (percentile) key = percentile[2];
  for (const [suffix, unit] of state.catalogue.unit_suffixes) if (key.endsWith(suffix)) return unit;
  // A queue's times carry no suffix: they are in the unit of 1/rate, seconds when the profile's rates are per second.
  if (/(^|_)(wait|response|think_time)$/.test(key)) return timeUnit();
  if (/(^|_)rate$/.test(key)) return timeUnit() === "s" ? "1/s" : "1/t";
  return null;
}

// A declared unit 't' (or '1/t') is the unit of the queue's rates: seconds once a profile fitted per second answers.
function ofRates(unit) {
  if (unit === "t") return timeUnit();
  if (unit === "1/t") return timeUnit() === "s" ? "1/s" : "1/t";
  return unit;
}

function timeUnit() {
  const perSecond = state.family && state.family.parameters.some((p) => p.unit === "1/s");
  const profiled = state.answer ? Boolean(state.answer.profiled) : Boolean(state.profile);
  return perSecond && profiled ? "s" : "t";
}

function usable(unit) {
  return unit && !["", "1", "name"].includes(unit) ? unit : null;
}

function withUnit(key, command) {
  const unit = unitOf(key, command);
  return unit ? `${key} [${unit}]` : key;
}

// --- boot, families, questions --------------------------------------------------------

async function boot() {
  const response = await fetch("/api/catalogue");
  state.catalogue = await response.json();
  for (const command of state.catalogue.commands) state.commands.set(command.command, command);
  const families = $("family");
  for (const family of state.catalogue.families) {
    families.append(element("option", { value: family.name, text: `${family.name}: ${family.summary}` }));
  }
  families.addEventListener("change", () => selectFamily(families.value));
  $("question").addEventListener("change", () => selectQuestion($("question").value, null, true));
  $("plot-y").addEventListener("change", () => { state.chosenY = $("plot-y").value; drawAnswer(); saveUrl(); });
  $("fit-form").addEventListener("submit", (event) => { event.preventDefault(); fit(); });
  $("fit-example").addEventListener("click", fitExample);
  $("use-shipped").addEventListener("click", () => useProfile(null));
  $("profile-file").addEventListener("change", loadProfile);
  $("size-form").addEventListener("submit", (event) => { event.preventDefault(); size(); });
  $("size-target").addEventListener("change", showSizeTarget);
  $("pin").addEventListener("click", pin);
  $("unpin").addEventListener("click", unpin);
  $("cancel").addEventListener("click", cancel);
  $("export-csv").addEventListener("click", exportCsv);
  $("export-json").addEventListener("click", exportJson);
  $("export-png").addEventListener("click", exportPng);
  $("share").addEventListener("click", share);
  const saved = readUrl();
  const start = familyOf(saved.f) ? saved.f : state.catalogue.families[0].name;
  await selectFamily(start, saved);
  document.body.dataset.ready = "true";
}

function familyOf(name) {
  return state.catalogue.families.find((f) => f.name === name);
}

// The shipped profile's parameter values (GET /api/families/NAME/parameters), shown where a field is left empty.
async function loadShipped(name) {
  state.shipped = state.shipped || new Map();
  if (state.shipped.has(name)) return;
  try {
    const reply = await fetch(`/api/families/${encodeURIComponent(name)}/parameters`);
    const rows = reply.ok ? await reply.json() : [];
    state.shipped.set(name, Object.fromEntries((Array.isArray(rows) ? rows : []).map((p) => [p.name, p.value])));
  } catch {
    state.shipped.set(name, {});
  }
}

// What an empty parameter field answers with: the profile's value (fitted or shipped).
function inUse(field) {
  const fitted = state.profile && state.profile.doc.parameters && state.profile.doc.parameters[field.key];
  if (fitted && typeof fitted.value === "number") return { ...field, declared: fitted.value, declaredBy: "profile" };
  const shipped = state.shipped && state.shipped.get(state.family.name);
  if (shipped && typeof shipped[field.key] === "number") return { ...field, declared: shipped[field.key], declaredBy: "shipped" };
  return field;
}

async function selectFamily(name, saved = {}) {
  await loadShipped(name);
  const family = familyOf(name);
  state.family = family;
  $("family").value = name;
  $("family-summary").textContent = `${family.summary} (${family.source})`;
  if (state.profile && state.profile.family !== name) state.profile = null;
  showProfile();
  showFitOptions(family);
  const select = $("question");
  select.replaceChildren();
  const questions = family.questions.map((q) => q.command).filter((c) => state.commands.has(c));
  for (const command of questions) {
    select.append(element("option", { value: command, text: `${command}: ${state.commands.get(command).summary}` }));
  }
  const simulations = family.simulations.filter((c) => state.commands.has(c));
  if (simulations.length) {
    const group = element("optgroup", { label: "by simulation (slow: runs as a job)" });
    for (const command of simulations) group.append(element("option", { value: command, text: command }));
    select.append(group);
  }
  showSizing(family);
  if (!select.options.length) {
    $("question-help").textContent = "This family declares no question the server answers.";
    $("inputs").replaceChildren();
    return;
  }
  const wanted = saved.q && state.commands.has(saved.q) ? saved.q : select.options[0].value;
  selectQuestion(wanted, saved);
}

// ``carry``: values the planner gave fields this question shares with the last one stay (a parameter
// fixed, a CPU speed); the question's own starting sweep still applies.
function selectQuestion(name, saved = null, carry = false) {
  const carried = {};
  if (carry) {
    for (const wrap of $("inputs").querySelectorAll(".field[data-key]")) {
      const text = String(wrap.input.value).trim();
      if (wrap.field.kind !== "boolean" && text !== "" && text !== String(wrap.field.default ?? "")) carried[wrap.field.key] = text;
    }
  }
  const command = state.commands.get(name);
  state.command = command;
  $("question").value = name;
  $("question-help").textContent = command.help;
  const form = $("inputs");
  form.replaceChildren();
  const table = state.profile ? state.catalogue.starting_with_profile : state.catalogue.starting_inputs;
  const starting = { ...(state.catalogue.starting_inputs[name] || {}), ...(table[name] || {}) };
  if (state.profile && state.catalogue.starting_with_profile[name]) {
    // With a profile the profile's own values answer: the demo's parameters are left out.
    for (const key of Object.keys(starting)) if (!(key in state.catalogue.starting_with_profile[name])) delete starting[key];
  }
  const values = saved && saved.v ? saved.v : { ...carried, ...starting };
  for (const field of command.fields) {
    if (HIDDEN_FIELDS.has(field.key) || field.kind === "profile" || field.kind === "profiles") continue;
    form.append(fieldControl(command.declared ? inUse(field) : field, values[field.key], () => schedule()));
  }
  state.chosenY = saved && saved.y;  // the planner's choice of curve (or the link's) is kept across answers
  schedule(0);
}

// --- one input per field: number + slider, list, checkbox, choice -------------------

function sliderRange(field, value) {
  // The declared bounds, cut to four times the value shown so that a small value is not lost at one end.
  let [low, high] = (field.bounds || [0, null]).map((b, i) => (b === null ? (i ? Infinity : 0) : b));
  const v = Number(value);
  if (!Number.isFinite(low) || low < -1e12) low = 0;
  if (Number.isFinite(v) && v > 0) high = Math.min(high, Math.max(v * 4, low + 1));
  if (!Number.isFinite(high)) high = low + 100;
  if (Number.isFinite(v) && v > high) high = v * 2;
  if (Number.isFinite(v) && v < low) low = v;
  return [low, high];
}

function boundsText(field) {
  if (!field.bounds || !["number", "integer"].includes(field.kind)) return "";
  const [low, high] = field.bounds;
  if (low === high) return "";
  const unit = field.unit ? ` ${field.unit}` : "";
  if (low !== null && high !== null && high < 1e12) return ` (${formatValue(low)} to ${formatValue(high)}${unit})`;
  if (low !== null) return ` (at least ${formatValue(low)}${unit})`;
  return "";
}

// ``prefix`` keeps ids apart where two forms share a key (the fit's servers and the what-if's).
function fieldControl(field, initial, onChange, prefix = "field") {
  const value = initial !== undefined ? initial : field.default;
  const id = `${prefix}-${field.key}`;
  const tag = prefix === "field" ? "" : `${prefix}-`;
  const wrap = element("div", { class: "field", "data-key": field.key });
  const label = element("label", { for: id, class: "name" }, field.key);
  if (field.unit) label.append(element("span", { class: "unit", text: ` [${field.unit}]` }));
  wrap.append(label);
  const control = element("div", { class: "control" });
  const described = `${tag}help-${field.key} ${tag}error-${field.key}`;
  let input;
  if (field.kind === "boolean") {
    input = element("input", { type: "checkbox", id, name: field.key, "aria-describedby": described });
    input.checked = Boolean(value);
    input.addEventListener("change", () => onChange());
    control.append(input);
  } else if (field.kind === "choice") {
    input = element("select", { id, name: field.key, "aria-describedby": described });
    if (field.default === null || field.default === undefined) input.append(element("option", { value: "", text: "(default)" }));
    for (const choice of field.choices) input.append(element("option", { value: choice, text: choice }));
    if (value !== null && value !== undefined) input.value = value;
    input.addEventListener("change", () => onChange());
    control.append(input);
  } else if ((field.kind === "number" || field.kind === "integer") && !field.many) {
    const declared = typeof field.declared === "number" ? field.declared : null;
    input = element("input", {
      type: "text", inputmode: "decimal", id, name: field.key, "aria-describedby": described,
      placeholder: field.required ? "required" : (declared !== null ? `${field.declaredBy || "declared"} ${formatValue(declared)}` : "default"),
    });
    if (value !== null && value !== undefined) input.value = value;
    const slider = element("input", { type: "range", "aria-label": `${field.key} slider`, "data-slider": field.key });
    const place = () => {
      // An empty field answers with the declared value: the slider starts there.
      const typed = Number(input.value);
      const shown = input.value !== "" && Number.isFinite(typed) ? typed : declared;
      const [low, high] = sliderRange(field, shown);
      slider.min = low; slider.max = high;
      slider.step = field.kind === "integer" ? Math.max(1, Math.round((high - low) / 400)) : (high - low) / 400;
      slider.disabled = shown === null;
      if (shown !== null) slider.value = shown;
    };
    place();
    input.addEventListener("input", () => { place(); onChange(); });
    slider.addEventListener("input", () => {
      input.value = field.kind === "integer" ? Math.round(Number(slider.value)) : Number(Number(slider.value).toPrecision(6));
      onChange();
    });
    slider.addEventListener("change", place);
    control.append(input, slider);
  } else {
    input = element("input", {
      type: "text", id, name: field.key, "aria-describedby": described,
      placeholder: field.many ? "values separated by commas, or start:stop:step" : (field.metavar || (field.required ? "required" : "")),
    });
    if (value !== null && value !== undefined) input.value = Array.isArray(value) ? value.join(",") : value;
    if (field.suggestions && field.suggestions.length) {
      const list = element("datalist", { id: `names-${field.key}` });
      for (const name of field.suggestions) list.append(element("option", { value: name }));
      input.setAttribute("list", list.id);
      if (field.declared !== null && !input.value) input.placeholder = `declared ${field.declared}`;
      control.append(list);
    }
    input.addEventListener("input", () => onChange());
    control.append(input);
  }
  wrap.append(control);
  wrap.append(element("small", { id: `${tag}help-${field.key}`, text: (field.help || "") + boundsText(field) }));
  wrap.append(element("p", { class: "field-error", id: `${tag}error-${field.key}`, role: "alert", hidden: true }));
  wrap.field = field;
  wrap.input = input;
  return wrap;
}

class FieldError extends Error {
  constructor(key, message) { super(message); this.key = key; }
}

function number(field, text) {
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) throw new FieldError(field.key, `${field.key}: '${text}' is not a number`);
  if (field.kind === "integer" && !Number.isInteger(value)) throw new FieldError(field.key, `${field.key}: '${text}' is not a whole number`);
  return value;
}

// "1,2,4" or "1:64:8" (start:stop:step, as the CLI spells a sweep) -> numbers.
function numbers(field, text) {
  const values = [];
  for (const item of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const range = item.split(":");
    if (range.length === 3 && field.declaredInput) {
      const [start, stop, step] = range.map((r) => number(field, r));
      if (step <= 0) throw new FieldError(field.key, `${field.key}: the step of '${item}' must be positive`);
      if ((stop - start) / step > 2000) throw new FieldError(field.key, `${field.key}: '${item}' makes over 2,000 points`);
      for (let v = start; v <= stop + step * 1e-9; v += step) values.push(Number(v.toPrecision(12)));
    } else if (range.length === 2 && field.doubling) {  // a size sweep: 4:256 is 4, 8, ..., 256
      const [start, stop] = range.map((r) => number(field, r));
      if (!(start > 0 && start <= stop)) throw new FieldError(field.key, `${field.key}: '${item}' needs 0 < start <= stop`);
      for (let v = start; v <= stop * (1 + 1e-9); v *= 2) values.push(v);
    } else {
      values.push(number(field, item));
    }
  }
  return values;
}

function fieldValue(wrap) {
  const { field, input } = wrap;
  if (field.kind === "boolean") return input.checked === Boolean(field.default) ? undefined : input.checked;
  const text = String(input.value).trim();
  if (field.kind === "choice" && text === String(field.default ?? "")) return undefined;
  if (text === "") return undefined;
  if (field.many && (field.kind === "number" || field.kind === "integer")) {
    return numbers({ ...field, declaredInput: state.command && state.command.declared }, text);
  }
  if (field.many) return text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (field.kind === "number" || field.kind === "integer") return number(field, text);
  return text;
}

// The form's values; a value that is not a number is marked at its field and not sent.
function collect(form) {
  const body = {};
  let bad = null;
  for (const wrap of form.querySelectorAll(".field[data-key]")) {
    if (!wrap.field) continue;
    try {
      const value = fieldValue(wrap);
      if (value !== undefined) body[wrap.field.key] = value;
      markField(form, wrap.field.key, null);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      markField(form, error.key, error.message);
      bad = bad || error;
    }
  }
  if (bad) throw bad;
  return body;
}

function markField(scope, key, message) {
  const wrap = scope.querySelector(`.field[data-key="${CSS.escape(key)}"]`);
  if (!wrap) return false;
  const slot = wrap.querySelector(".field-error");
  slot.textContent = message || "";
  slot.hidden = !message;
  if (message) wrap.input.setAttribute("aria-invalid", "true");
  else wrap.input.removeAttribute("aria-invalid");
  return true;
}

function clearMarks(scope) {
  for (const wrap of scope.querySelectorAll(".field[data-key]")) if (wrap.field) markField(scope, wrap.field.key, null);
}

function withProfile(command, body) {
  const field = command.fields.find((f) => f.kind === "profile" || f.kind === "profiles");
  if (field && state.profile && state.profile.family === state.family.name) {
    body[field.key] = field.kind === "profiles" ? [state.profile.doc] : state.profile.doc;
  }
  return body;
}

function cliLine(command, body) {
  const quote = (w) => (/^[\w.,:=+-]+$/.test(String(w)) ? String(w) : `'${String(w).replace(/'/g, "'\\''")}'`);
  const words = ["iosizer", ...command.path];
  const positional = [];
  for (const field of command.fields) {
    if (!(field.key in body)) continue;
    let value = body[field.key];
    if (field.kind === "profile" || field.kind === "profiles") value = state.profile.filename;
    const items = command.declared && field.many ? [value.join(",")] : (Array.isArray(value) ? value : [value]);
    if (!field.flag) { positional.push(...items.map(quote)); continue; }
    if (field.kind === "boolean") { if (value) words.push(field.flag); continue; }
    for (const item of items) words.push(field.flag, quote(item));
  }
  return [...words, ...positional].join(" ");
}

// --- answers: debounced, the previous request cancelled, a long simulation polled --------

function schedule(delay = DEBOUNCE_MS) {
  clearTimeout(state.timer);
  state.timer = setTimeout(answer, delay);
}

function stopInFlight() {
  if (state.controller) state.controller.abort();
  state.controller = null;
  if (state.job) {
    fetch(state.job, { method: "DELETE" }).catch(() => {});  // the server kills its processes
    state.job = null;
  }
}

function cancel() {
  stopInFlight();
  showProgress(null);
  $("progress-text").textContent = "cancelled";
  document.body.dataset.answered = String(++state.sequence);
}

function showProgress(job) {
  const bar = $("progress");
  $("cancel").hidden = !job;
  bar.hidden = !job;
  if (!job) { $("progress-text").textContent = ""; return; }
  if (job.progress && job.progress.total) {
    bar.max = job.progress.total; bar.value = job.progress.done;
    $("progress-text").textContent = `${job.status}: ${job.progress.done} of ${job.progress.total} (${job.elapsed_s} s)`;
  } else {
    bar.removeAttribute("value");
    $("progress-text").textContent = `${job.status} (${job.elapsed_s} s)`;
  }
  document.body.dataset.progress = job.progress ? `${job.progress.done}/${job.progress.total}` : job.status;
}

async function answer() {
  const command = state.command;
  const form = $("inputs");
  let body;
  try {
    body = withProfile(command, collect(form));
  } catch (error) {
    if (!(error instanceof FieldError)) throw error;
    $("cli-line").textContent = "(fix the marked field)";
    document.body.dataset.answered = String(++state.sequence);
    return;
  }
  $("cli-line").textContent = cliLine(command, body);
  saveUrl();
  stopInFlight();
  const controller = new AbortController();
  state.controller = controller;
  const sequence = ++state.sequence;
  $("answer").classList.add("stale");
  const simulation = command.path[0] === "simulate";
  const url = command.declared ? command.url : `${command.url}?view=page${simulation ? "&wait=false" : ""}`;
  let reply, payload;
  try {
    reply = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      signal: controller.signal,
    });
    payload = await reply.json();
    // A simulation is a job (202): poll its progress until it ends or an edit cancels it.
    if (reply.status === 202) {
      state.job = payload.url;
      while (state.job === payload.url) {
        showProgress(payload);
        await new Promise((resolve) => setTimeout(resolve, 400));
        if (controller.signal.aborted) break;
        const job = await (await fetch(state.job, { signal: controller.signal })).json();
        if (job.status === "done") { reply = { ok: true, status: 200 }; payload = job.result; state.job = null; }
        else if (job.status === "failed" || job.status === "cancelled") {
          reply = { ok: false, status: job.status_code || 409 }; payload = job.error || job; state.job = null;
        } else payload = { ...job, url: state.job };
      }
    }
  } catch (error) {
    if (error.name === "AbortError") return;  // an edit started another request
    payload = { error: String(error), kind: "NetworkError" };
  }
  if (sequence !== state.sequence) return;
  state.controller = null;
  showProgress(null);
  if (!reply || !reply.ok) {
    showAnswerError(form, payload);
    document.body.dataset.answered = String(sequence);
    return;
  }
  $("answer-error").hidden = true;
  clearMarks(form);
  $("answer").classList.remove("stale");
  state.answer = normalise(command, body, payload);
  showAnswer();
  document.body.dataset.answered = String(sequence);
}

// A 422 naming a field shows next to that field; anything else above the answer.
function showAnswerError(form, payload) {
  const message = `${payload.error || "request failed"} (${payload.kind || "error"})`;
  const key = payload.field === "cpu_speed" && !state.command.fields.some((f) => f.key === "cpu_speed") ? null : payload.field;
  if (key && markField(form, key, message)) {
    $("answer-error").hidden = true;
    const wrap = form.querySelector(`.field[data-key="${CSS.escape(key)}"]`);
    wrap.scrollIntoView({ block: "nearest" });
    return;
  }
  showError($("answer-error"), payload);
}

function showError(node, payload) {
  node.textContent = `${payload.error || "request failed"} (${payload.kind || "error"})`;
  node.hidden = false;
}

// One shape for every answer: rows, the columns shown, what is plotted against what.
function normalise(command, body, payload) {
  let rows, columns, data, title, notes, figures;
  if (command.declared) {
    data = payload;
    rows = Array.isArray(payload) ? payload : [payload];
    columns = Object.keys(rows[0] || {});
    title = command.summary;
    notes = command.notes;
    figures = [];
  } else {
    data = payload.data;
    rows = payload.rows || [];
    columns = payload.columns && payload.columns.length ? payload.columns : Object.keys(rows[0] || {});
    title = payload.title || command.command;
    notes = payload.notes || [];
    figures = payload.plot || [];
  }
  const keys = [...new Set([...columns, ...rows.flatMap((r) => Object.keys(r))])];
  const numeric = keys.filter((k) => !isBandKey(k) && rows.length && rows.every((r) => r[k] === null || r[k] === undefined || typeof r[k] === "number")
    && rows.some((r) => typeof r[k] === "number"));
  const varies = (k) => new Set(rows.map((r) => r[k])).size > 1;
  const inputs = new Set(command.fields.map((f) => f.key));
  let xKey = command.chart ? command.chart.x : null;
  // An input swept, else a varying column in the family's units (IOPS rather than a normalised load).
  if (!xKey) xKey = numeric.find((k) => inputs.has(k) && varies(k)) || numeric.find((k) => varies(k) && unitOf(k, command))
    || numeric.find(varies) || numeric[0];
  let yKeys = numeric.filter((k) => k !== xKey && !inputs.has(k));
  if (command.chart) yKeys = [...command.chart.y, ...yKeys.filter((k) => !command.chart.y.includes(k))];
  if (!yKeys.length) yKeys = numeric.filter((k) => k !== xKey);
  // The first curve shown is one with its band, where the answer has one.
  const banded = yKeys.find((k) => rows.length && bandKeys(rows[0], k));
  if (banded) yKeys = [banded, ...yKeys.filter((k) => k !== banded)];
  // A simulation answers one row per metric: each metric is its own curve choice, in its own unit.
  const metricKey = keys.includes("metric") && varies("metric") ? "metric" : null;
  const seriesKeys = command.chart && command.chart.series ? [command.chart.series]
    : keys.filter((k) => k !== metricKey && !numeric.includes(k) && !isBandKey(k) && varies(k)
      && rows.every((r) => typeof r[k] === "string"));
  const metrics = metricKey ? [...new Set(rows.map((r) => r[metricKey]))] : [null];
  const choices = metrics.flatMap((m) => yKeys.map((y) => ({
    value: m === null ? y : `${y}@${m}`, y, metric: m,
    text: m === null ? withUnit(y, command) : `${y}: ${withUnit(m, command)}`,
  })));
  const shownColumns = columns.filter((k) => !isBandKey(k));
  const profiled = command.fields.some((f) => (f.kind === "profile" || f.kind === "profiles") && f.key in body);
  return { command, body, rows, columns: shownColumns, profiled, data, title, notes, figures, xKey, yKeys, seriesKeys,
           metricKey, choices, label: describe(command, body) };
}

function describe(command, body) {
  const inputs = Object.entries(body).filter(([k]) => k !== "profile" && k !== "profiles")
    .map(([k, v]) => `${k}=${Array.isArray(v) ? (v.length > 3 ? `${v[0]}..${v[v.length - 1]}` : v.join(",")) : v}`);
  return `${command.command}${inputs.length ? ` (${inputs.join(" ")})` : ""}`;
}

function showAnswer() {
  const answer = state.answer;
  $("answer-title").textContent = answer.title;
  const select = $("plot-y");
  const previous = state.chosenY;
  select.replaceChildren(...answer.choices.map((c) => element("option", { value: c.value, text: c.text })));
  if (answer.choices.some((c) => c.value === previous)) select.value = previous;
  renderAnswerTable($("answer-table"), answer);
  renderNotes($("answer-notes"), answer.notes);
  renderFigures($("charts"), answer.figures);
  $("figure-box").hidden = !answer.figures.length;
  $("answer-url").textContent = answer.command.url;
  $("answer-json").textContent = JSON.stringify(answer.data, null, 2);
  drawAnswer();
  renderCompare();
  saveUrl();
}

// --- the chart: every band drawn and named for what it is, measured points, the pinned answer ---

function bandLabel(body, y) {
  if (y === "simulated") return "95 % interval of the simulated mean (over the replications)";
  if (body.cpu_speed !== undefined && body.cpu_speed !== null) {
    return "span over the assumed CPU-scaling exponents (with the profile's 95 % intervals; not a confidence interval)";
  }
  return body.band === "prediction" ? "95 % prediction band (parameters + residual scatter)" : "95 % band of the parameters";
}

function groups(answer) {
  const out = new Map();
  for (const row of answer.rows) {
    const name = answer.seriesKeys.map((k) => `${k} ${row[k]}`).join(", ");
    if (!out.has(name)) out.set(name, []);
    out.get(name).push(row);
  }
  return out;
}

function curveSets(answer, y, style) {
  const sets = [];
  let color = style.color;
  for (const [name, rows] of groups(answer)) {
    const hue = COLORS[color++ % COLORS.length];
    const sorted = rows.filter((r) => typeof r[answer.xKey] === "number" && typeof r[y] === "number")
      .sort((a, b) => a[answer.xKey] - b[answer.xKey]);
    const label = [style.prefix, name || y].filter(Boolean).join(": ");
    const band = sorted.length ? bandKeys(sorted[0], y) : null;
    if (band) {
      const edge = (key) => sorted.filter((r) => typeof r[key] === "number").map((r) => ({ x: r[answer.xKey], y: r[key] }));
      sets.push({ label: `${label} (band low)`, data: edge(band[0]), showLine: true, pointRadius: 0, borderWidth: 0,
                  borderColor: "transparent", fill: false, edge: true });
      sets.push({ label: `${label}: ${bandLabel(answer.body, y)}`, data: edge(band[1]), showLine: true, pointRadius: 0,
                  borderWidth: 0, borderColor: "transparent", backgroundColor: hue + (style.pinned ? "22" : "38"),
                  fill: "-1", band: true });
    }
    sets.push({ label, data: sorted.map((r) => ({ x: r[answer.xKey], y: r[y] })), borderColor: hue,
                backgroundColor: hue, borderWidth: 2, showLine: true, fill: false,
                pointRadius: sorted.length < 2 ? 4 : 2, borderDash: style.pinned ? [6, 4] : undefined });
  }
  return sets;
}

function drawAnswer() {
  const answer = state.answer;
  if (!answer) return;
  if (state.chart) state.chart.destroy();
  state.chart = null;
  $("chart").parentElement.hidden = !answer.xKey;
  if (!answer.xKey) {  // a table of named values (a link's budget): no curve to draw
    $("band-note").textContent = "";
    return;
  }
  const choice = answer.choices.find((c) => c.value === $("plot-y").value) || answer.choices[0];
  const y = choice.y;
  const only = (a) => (a.metricKey ? { ...a, rows: a.rows.filter((r) => r[a.metricKey] === choice.metric) } : a);
  const sets = curveSets(only(answer), y, { color: 0 });
  if (y === "simulated" && answer.yKeys.includes("analytic")) sets.push(...curveSets(only(answer), "analytic", { color: 1 }));
  const measured = state.profile && state.profile.family === state.family.name && state.profile.measured[y];
  if (measured && measured.x === answer.xKey) {
    sets.push({ label: `measured (${state.profile.filename.replace(/-profile\.json$/, "")})`, data: measured.points,
                showLine: false, pointRadius: 4, pointStyle: "crossRot", borderColor: "#111", backgroundColor: "#111",
                measured: true });
  }
  const pinned = state.pinned;
  if (pinned && pinned.xKey === answer.xKey && pinned.rows.some((r) => y in r)) {
    sets.push(...curveSets(only(pinned), y, { color: 3, prefix: "pinned", pinned: true }));
  }
  const xUnit = unitOf(answer.xKey, answer.command);
  const yUnit = unitOf(choice.metric || y, answer.command);
  const yName = choice.metric ? `${y} ${choice.metric}` : y;
  const canvas = $("chart");
  canvas.setAttribute("aria-label", `${y} against ${answer.xKey}${sets.some((s) => s.band) ? ", with its band" : ""}`);
  state.chart = new Chart(canvas, {
    type: "scatter",
    data: { datasets: sets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false,
      plugins: {
        title: { display: true, text: answer.title },
        legend: { labels: { boxWidth: 12, filter: (item, data) => !data.datasets[item.datasetIndex].edge } },
      },
      scales: {
        x: { type: "linear", title: { display: true, text: xUnit ? `${answer.xKey} (${xUnit})` : answer.xKey } },
        y: { title: { display: true, text: yUnit ? `${yName} (${yUnit})` : yName } },
      },
    },
  });
  const bands = sets.filter((s) => s.band).length;
  $("band-note").textContent = bands ? `Shaded: ${bandLabel(answer.body, y)}.` : "This answer carries no band (no profile intervals for it).";
  document.body.dataset.bands = String(bands);
}

// --- tables: units in the headers, bands as "value [low, high]" --------------------------

function cell(row, key) {
  const value = row[key];
  const band = bandKeys(row, key);
  if (band && typeof value === "number" && row[band[0]] !== null && row[band[1]] !== null) {
    return `${formatValue(value)} [${formatValue(row[band[0]])}, ${formatValue(row[band[1]])}]`;
  }
  return formatValue(value);
}

const MAX_ROWS = 500;

function renderAnswerTable(table, answer) {
  const rows = answer.rows;
  table.replaceChildren();
  if (!rows.length) return;
  const columns = answer.columns;
  const numeric = columns.map((c) => rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === "number"));
  const head = element("tr");
  columns.forEach((c, i) => head.append(element("th", { scope: "col", class: numeric[i] ? null : "text", text: withUnit(c, answer.command) })));
  const body = element("tbody");
  for (const row of rows.slice(0, MAX_ROWS)) {
    const tr = element("tr");
    columns.forEach((c, i) => tr.append(element("td", { class: numeric[i] ? null : "text", text: cell(row, c) })));
    body.append(tr);
  }
  if (rows.length > MAX_ROWS) {
    body.append(element("tr", {}, element("td", { colspan: columns.length, class: "text",
      text: `… ${rows.length - MAX_ROWS} more rows (the export has them all)` })));
  }
  table.append(element("thead", {}, head), body);
}

function renderPlainTable(table, columns, rows, heading = (c) => c) {
  table.replaceChildren();
  if (!rows || !rows.length) return;
  const head = element("tr");
  for (const c of columns) head.append(element("th", { scope: "col", class: "text", text: heading(c) }));
  const body = element("tbody");
  for (const row of rows) {
    const tr = element("tr");
    for (const c of columns) tr.append(element("td", { class: typeof row[c] === "number" ? null : "text", text: formatValue(row[c]) }));
    body.append(tr);
  }
  table.append(element("thead", {}, head), body);
}

function renderNotes(list, notes) {
  list.replaceChildren(...(notes || []).map((n) => element("li", { text: n })));
}

// The CLI's own figure (published points, bounds), kept under the answer.
function renderFigures(container, panels) {
  for (const chart of state.figures) chart.destroy();
  state.figures = drawPanels(container, panels);
}

function drawPanels(container, panels) {
  container.replaceChildren();
  const charts = [];
  for (const panel of panels || []) {
    const categorical = panel.series.some((s) => s.x.some((x) => typeof x === "string"));
    const canvas = element("canvas", { role: "img", "aria-label": panel.title });
    container.append(element("figure", {}, canvas));
    const sets = [];
    let color = 0;
    for (const s of panel.series) {
      const pts = (ys) => s.x.map((x, i) => ({ x, y: ys[i] })).filter((p) => p.x !== null && p.y !== null);
      if (s.kind === "band") {
        sets.push({ label: `${s.label} (low)`, data: pts(s.y), showLine: true, pointRadius: 0, borderWidth: 0, fill: false, edge: true });
        sets.push({ label: s.label, data: pts(s.y_high), showLine: true, pointRadius: 0, borderWidth: 0,
                    backgroundColor: "rgba(31, 111, 178, 0.18)", fill: "-1" });
        continue;
      }
      const hue = COLORS[color++ % COLORS.length];
      const set = { label: s.label, data: pts(s.y), borderColor: hue, backgroundColor: hue, borderWidth: 2,
                    showLine: s.kind !== "points" && s.kind !== "bound", pointRadius: 0, fill: false };
      if (s.kind === "points" || s.kind === "linepoints") set.pointRadius = 3;
      if (s.kind === "bound") { set.pointRadius = 5; set.pointStyle = "triangle"; set.rotation = 180; }
      if (s.kind === "dashed") set.borderDash = [6, 4];
      if (set.showLine && set.data.length < 2) set.pointRadius = 3;
      sets.push(set);
    }
    const labels = categorical ? [...new Set(panel.series.flatMap((s) => s.x))] : undefined;
    charts.push(new Chart(canvas, {
      type: "scatter",
      data: { labels, datasets: sets },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        plugins: { title: { display: true, text: panel.title },
                   legend: { labels: { boxWidth: 12, filter: (item, data) => !data.datasets[item.datasetIndex].edge } } },
        scales: { x: { type: categorical ? "category" : "linear", title: { display: true, text: panel.x_label } },
                  y: { title: { display: true, text: panel.y_label } } },
      },
    }));
  }
  return charts;
}

// --- compare: a pinned answer against the current one -----------------------------------

function pin() {
  if (!state.answer) return;
  state.pinned = state.answer;
  $("unpin").hidden = false;
  drawAnswer();
  renderCompare();
}

function unpin() {
  state.pinned = null;
  $("unpin").hidden = true;
  drawAnswer();
  renderCompare();
}

function rowKey(answer, row) {
  return JSON.stringify([row[answer.xKey], ...answer.seriesKeys.map((k) => row[k]), answer.metricKey && row[answer.metricKey]]);
}

function renderCompare() {
  const box = $("compare");
  const pinned = state.pinned;
  const answer = state.answer;
  box.hidden = !pinned;
  if (!pinned || !answer) return;
  $("compare-what").textContent = `Pinned: ${pinned.label}. Now: ${answer.label}.`;
  const byKey = new Map(pinned.rows.map((r) => [rowKey(pinned, r), r]));
  const ys = answer.yKeys.filter((y) => pinned.yKeys.includes(y));
  const columns = [answer.xKey, ...answer.seriesKeys, ...(answer.metricKey ? [answer.metricKey] : [])];
  const out = [];
  for (const row of answer.rows) {
    const old = byKey.get(rowKey(answer, row));
    if (!old) continue;
    const line = Object.fromEntries(columns.map((c) => [c, row[c]]));
    for (const y of ys) {
      line[`${y} pinned`] = old[y];
      line[`${y} now`] = row[y];
      line[`${y} change`] = typeof row[y] === "number" && typeof old[y] === "number" ? row[y] - old[y] : null;
      line[`${y} change %`] = typeof line[`${y} change`] === "number" && old[y] ? (100 * line[`${y} change`]) / Math.abs(old[y]) : null;
    }
    out.push(line);
  }
  const shown = [...columns, ...ys.flatMap((y) => [`${y} pinned`, `${y} now`, `${y} change`, `${y} change %`])];
  const heading = (c) => {
    const [name, ...rest] = c.split(" ");
    if (rest[0] === "change" && rest[1] === "%") return `${name} change [%]`;
    const unit = unitOf(name, answer.command);
    return `${name}${rest.length ? " " + rest.join(" ") : ""}${unit ? ` [${unit}]` : ""}`;
  };
  renderPlainTable($("compare-table"), shown, out, heading);
  if (!out.length) $("compare-what").textContent += " No point of the two answers has the same inputs: the curves overlay only.";
}

// --- my system: fit, the fit report, the profile -------------------------------------------

function showFitOptions(family) {
  const options = $("fit-options");
  options.replaceChildren();
  const calibrate = state.catalogue.calibrate;
  $("fit-run").disabled = $("fit-example").disabled = !family.calibratable || !calibrate;
  if (!calibrate) return;
  const settings = family.example_settings || {};
  const owned = new Set(state.catalogue.families.flatMap((f) => f.calibrate_options));
  for (const field of calibrate.fields) {
    if (["columns", "cpu_speed", "verbose"].includes(field.key)) continue;
    if (owned.has(field.key) && !family.calibrate_options.includes(field.key)) continue;
    options.append(fieldControl(field, settings[field.key], () => {}, "fit"));
  }
  $("data-columns").textContent = family.example
    ? `Columns as in the shipped example ${family.example} (iosizer calibrate ${family.name} --columns).` : "";
}

async function fitExample() {
  const name = state.family.name;
  const reply = await fetch(`/api/families/${encodeURIComponent(name)}/example`);
  if (!reply.ok) { showError($("fit-error"), await reply.json()); return; }
  const file = new File([await reply.blob()], state.family.example.split("/").pop(), { type: "text/csv" });
  const transfer = new DataTransfer();
  transfer.items.add(file);
  $("data-file").files = transfer.files;
  fit();
}

async function fit() {
  const family = state.family.name;
  const files = $("data-file").files;
  const error = $("fit-error");
  error.hidden = true;
  if (!files.length) { showError(error, { error: "choose a data file first (CSV or fio JSON)", kind: "InputError" }); return; }
  const cpu = Number($("cpu-measured").value);
  if (!Number.isFinite(cpu) || cpu <= 0) {
    markCpu(`'${$("cpu-measured").value}' is not a positive number`);
    return;
  }
  markCpu(null);
  let options;
  try { options = collect($("fit-options")); } catch (failure) { if (failure instanceof FieldError) return; throw failure; }
  const form = new FormData();
  for (const file of files) form.append("file", file, file.name);
  for (const [key, value] of Object.entries(options)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, String(item));
  }
  form.append("cpu_speed", String(cpu));
  $("fit-run").disabled = true;
  $("fit-busy").hidden = false;
  let reply, payload;
  try {
    // The custom header makes this a non-simple request: the server refuses a form without it.
    reply = await fetch(`/api/calibrate/${encodeURIComponent(family)}?view=page`, {
      method: "POST", headers: { "X-Iosizer": "1" }, body: form,
    });
    payload = await reply.json();
  } catch (failure) {
    payload = { error: String(failure), kind: "NetworkError" };
  } finally {
    $("fit-run").disabled = false;
    $("fit-busy").hidden = true;
  }
  if (!reply || !reply.ok) {
    if (!(payload.field && (markField($("fit-options"), payload.field, payload.error)
        || (payload.field === "cpu_speed" && markCpu(payload.error))))) showError(error, payload);
    document.body.dataset.fitFailed = String(Date.now());
    return;
  }
  showFitReport(payload, files);
  const measured = {};
  for (const panel of payload.plot || []) {
    const points = panel.series.find((s) => s.kind === "points");
    if (points) measured[panel.y_label] = { x: panel.x_label, points: points.x.map((x, i) => ({ x, y: points.y[i] })) };
  }
  const names = files.length > 1 ? `${files.length} files` : files[0].name;
  useProfile({ family, doc: payload.data.profile, filename: `${family}-profile.json`, measured,
               label: `fitted to ${names} (R² ${formatValue(payload.data.r2)}, CPU speed ${formatValue(cpu)})` });
  document.body.dataset.calibrated = family;
}

// A profile saved before: it answers as a fitted one. One that records no CPU speed takes the speed
// given here, as 'iosizer calibrate --cpu-speed' would have recorded it, so a what-if can carry it.
async function loadProfile() {
  const input = $("profile-file");
  const slot = $("error-profile-file");
  const file = input.files[0];
  if (!file) return;
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (error) {
    doc = null;
  }
  const known = doc && typeof doc === "object" && familyOf(doc.model);
  slot.hidden = Boolean(known);
  if (!known) {
    slot.textContent = `${file.name}: not an iosizer profile (a JSON document with a 'model' naming a family)`;
    input.setAttribute("aria-invalid", "true");
    return;
  }
  input.removeAttribute("aria-invalid");
  $("fit-report").hidden = true;  // the report shown was of another fit
  let speed = `CPU speed ${formatValue(doc.cpu_speed)}`;
  if (doc.cpu_speed === null || doc.cpu_speed === undefined) {
    const cpu = Number($("cpu-measured").value);
    if (!Number.isFinite(cpu) || cpu <= 0) { markCpu("the profile records no CPU speed: give the measured machine's"); return; }
    doc = { ...doc, cpu_speed: cpu };
    speed = `CPU speed ${formatValue(cpu)}, given here (the file records none)`;
  }
  if (state.family.name !== doc.model) {
    state.profile = null;
    $("family").value = doc.model;
    await selectFamily(doc.model);
  }
  useProfile({ family: doc.model, doc, filename: file.name, measured: {}, label: `loaded from ${file.name} (${speed})` });
  document.body.dataset.loaded = file.name;
}

function markCpu(message) {
  const slot = $("error-cpu-measured");
  slot.textContent = message || "";
  slot.hidden = !message;
  if (message) $("cpu-measured").setAttribute("aria-invalid", "true");
  else $("cpu-measured").removeAttribute("aria-invalid");
  return true;
}

function showFitReport(payload, files) {
  const fit = payload.data;
  $("fit-report").hidden = false;
  $("fit-title").textContent = payload.title || `Fit of ${fit.model}`;
  const rows = Object.entries(fit.parameters).map(([name, p]) => ({
    parameter: name, value: p.value, interval: p.fixed ? "fixed" : `[${formatValue(p.ci_low)}, ${formatValue(p.ci_high)}]`,
    unit: usable(p.unit) || "",
  }));
  renderPlainTable($("fit-table"), ["parameter", "value", "interval", "unit"], rows,
                   (c) => (c === "interval" ? "95 % interval" : c));
  const perColumn = Object.entries(fit.columns || {}).map(([c, s]) => `${c} ${formatValue(s.r2)}`);
  $("fit-r2").textContent = `R² ${formatValue(fit.r2)}${perColumn.length > 1 ? ` (${perColumn.join(", ")})` : ""} over ${fit.n_points} points; RMSE ${formatValue(fit.rmse)}.`;
  renderNotes($("fit-warnings"), (fit.warnings || []).map((w) => `warning: ${w}`));
  for (const chart of state.fitCharts) chart.destroy();
  state.fitCharts = drawPanels($("fit-charts"), payload.plot);
  void files;
}

function useProfile(profile) {
  state.profile = profile;
  if (!profile) $("fit-report").hidden = true;
  showProfile();
  if (state.command) selectQuestion(state.command.command);
}

function showProfile() {
  const link = $("profile-download");
  const profile = state.profile;
  if (!profile) {
    $("profile-status").textContent = `Profile: the shipped '${state.family.name}' profile. Every question below uses it until you fit your measurements.`;
    link.hidden = true;
    return;
  }
  $("profile-status").textContent = `Profile: '${profile.family}' ${profile.label}. Every question below uses it until you change it.`;
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([JSON.stringify(profile.doc, null, 2)], { type: "application/json" }));
  link.download = profile.filename;
  link.hidden = false;
}

// --- size: the family's sizing targets, in one field, with the profile in use -----------------

function showSizing(family) {
  const select = $("size-target");
  select.replaceChildren();
  $("size-value").value = "";
  const sizing = family.sizing;
  $("size-form").hidden = !sizing;
  $("size-table").replaceChildren();
  $("size-notes").replaceChildren();
  $("size-error").hidden = true;
  if (!sizing) { $("size-help").textContent = `The ${family.name} family has no sizing question.`; return; }
  const command = state.commands.get(sizing.command);
  $("size-help").textContent = `${command.summary} (iosizer ${sizing.command}; with the profile in use.)`;
  for (const key of sizing.targets) select.append(element("option", { value: key, text: withUnit(key, command) }));
  showSizeTarget();
}

function showSizeTarget() {
  const command = state.commands.get(state.family.sizing.command);
  const key = $("size-target").value;
  const field = command.fields.find((f) => f.key === key);
  $("size-value-label").textContent = `${key}${unitOf(key, command) ? ` [${unitOf(key, command)}]` : ""}`;
  const starting = state.catalogue.starting_inputs[command.command] || {};
  if ($("size-value").value === "" && starting[key] !== undefined) $("size-value").value = starting[key];
  $("size-value").title = field ? field.help : "";
}

async function size() {
  const command = state.commands.get(state.family.sizing.command);
  const key = $("size-target").value;
  const slot = $("error-size-value");
  const text = $("size-value").value.trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) {
    slot.textContent = `${key}: '${text}' is not a number`; slot.hidden = false;
    $("size-value").setAttribute("aria-invalid", "true");
    return;
  }
  slot.hidden = true;
  $("size-value").removeAttribute("aria-invalid");
  // The what-if's values where the sizing command takes them (nothing is reset), then its starting values.
  const body = { ...(state.catalogue.starting_inputs[command.command] || {}) };
  for (const target of state.family.sizing.targets) delete body[target];
  let current = {};
  try { current = state.command ? collect($("inputs")) : {}; } catch (error) { if (!(error instanceof FieldError)) throw error; }
  for (const field of command.fields) {
    if (field.key in current && !HIDDEN_FIELDS.has(field.key)) body[field.key] = current[field.key];
  }
  if (state.profile) for (const k of Object.keys(body)) if (!(k in current) && k !== key && !command.fields.find((f) => f.key === k && f.required)) delete body[k];
  body[key] = value;
  withProfile(command, body);
  $("size-run").disabled = true;
  let reply, payload;
  try {
    reply = await fetch(`${command.url}?view=page`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    payload = await reply.json();
  } catch (failure) {
    payload = { error: String(failure), kind: "NetworkError" };
  } finally {
    $("size-run").disabled = false;
  }
  if (!reply || !reply.ok) {
    if (payload.field === key) { slot.textContent = `${payload.error} (${payload.kind})`; slot.hidden = false; }
    else showError($("size-error"), payload);
    $("size-table").replaceChildren();
    document.body.dataset.sized = String(Date.now());
    return;
  }
  $("size-error").hidden = true;
  // A metric/value answer: a metric's _ci_low/_ci_high rows fold into its own, as "value [low, high]".
  const raw = payload.rows || [];
  const byMetric = new Map(raw.filter((r) => "metric" in r).map((r) => [r.metric, r.value]));
  const rows = raw.filter((r) => !("metric" in r) || !isBandKey(r.metric) || !byMetric.has(r.metric.replace(/_ci_(low|high)$|_(low|high)$/, "")))
    .map((r) => {
      if (!("metric" in r)) return r;
      const low = byMetric.get(`${r.metric}_ci_low`) ?? byMetric.get(`${r.metric}_low`);
      const high = byMetric.get(`${r.metric}_ci_high`) ?? byMetric.get(`${r.metric}_high`);
      const value = low !== undefined && high !== undefined && low !== null && high !== null
        ? `${formatValue(r.value)} [${formatValue(low)}, ${formatValue(high)}]` : r.value;
      return { ...r, metric: withUnit(r.metric, command), value };
    });
  renderPlainTable($("size-table"), payload.columns || Object.keys(rows[0] || {}), rows);
  renderNotes($("size-notes"), payload.notes);
  document.body.dataset.sized = String(Date.now());
}

// --- the page's state in the URL, exports ---------------------------------------------------

function readUrl() {
  const params = new URLSearchParams(location.hash.slice(1));
  const saved = { f: params.get("family"), q: params.get("question"), y: params.get("plot") };
  if (params.has("inputs")) {
    try { saved.v = JSON.parse(params.get("inputs")); } catch { saved.v = null; }
  }
  return saved;
}

function saveUrl() {
  if (!state.command) return;
  const values = {};
  for (const wrap of $("inputs").querySelectorAll(".field[data-key]")) {
    const input = wrap.input;
    if (wrap.field.kind === "boolean") { if (input.checked !== Boolean(wrap.field.default)) values[wrap.field.key] = input.checked; }
    else if (String(input.value).trim() !== "" && input.value !== String(wrap.field.default ?? "")) values[wrap.field.key] = input.value;
  }
  const params = new URLSearchParams({ family: state.family.name, question: state.command.command, inputs: JSON.stringify(values) });
  if ($("plot-y").value) params.set("plot", $("plot-y").value);
  history.replaceState(null, "", `#${params}`);
}

function share() {
  saveUrl();
  const field = $("share-url");
  field.value = location.href + (state.profile ? "" : "");
  field.hidden = false;
  field.select();
  if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(() => {});
  $("progress-text").textContent = state.profile
    ? "Link made: it opens with the shipped profile; send the downloaded profile with it." : "Link made.";
}

function download(name, blob) {
  const link = element("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

function baseName() {
  return `iosizer-${state.answer.command.path.join("-")}`;
}

function exportCsv() {
  if (!state.answer) return;
  const rows = state.answer.rows;
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const quote = (v) => (v === null || v === undefined ? "" : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  const text = [keys.join(","), ...rows.map((r) => keys.map((k) => quote(r[k])).join(","))].join("\n") + "\n";
  download(`${baseName()}.csv`, new Blob([text], { type: "text/csv" }));
}

function exportJson() {
  if (!state.answer) return;
  download(`${baseName()}.json`, new Blob([JSON.stringify(state.answer.data, null, 2) + "\n"], { type: "application/json" }));
}

function exportPng() {
  if (!state.chart) return;
  $("chart").toBlob((blob) => download(`${baseName()}.png`, blob), "image/png");
}

boot().catch((failure) => showError($("answer-error"), { error: `the page could not start: ${failure}`, kind: "PageError" }));
