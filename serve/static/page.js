// The what-if page: every form is built from /api/catalogue (itself generated
// from the CLI's command tree), every answer comes from POST /api/<command>?view=page.
"use strict";

const state = {
  catalogue: null,
  commands: new Map(),   // "queue mmc" -> command description
  command: null,         // the question shown
  profiles: new Map(),   // family -> {doc, label}
  sequence: 0,           // answers arriving out of order are dropped
  timer: null,
  charts: { answer: [], calibrate: [] },
};

const $ = (id) => document.getElementById(id);
const COLORS = ["#1f6fb2", "#d1495b", "#2e933c", "#edae49", "#7b4fa8", "#00798c", "#8c564b", "#e377c2"];

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// --- numbers as the CLI's tables show them: six significant figures ---------

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

// --- the catalogue and the pickers -------------------------------------------

async function boot() {
  const response = await fetch("/api/catalogue");
  state.catalogue = await response.json();
  for (const command of state.catalogue.commands) state.commands.set(command.command, command);
  const families = $("family");
  for (const family of state.catalogue.families) {
    families.append(element("option", { value: family.name, text: `${family.name}: ${family.summary}` }));
  }
  const calibratable = $("calibrate-family");
  for (const family of state.catalogue.families.filter((f) => f.calibratable)) {
    calibratable.append(element("option", { value: family.name, text: family.name }));
  }
  families.addEventListener("change", () => selectFamily(families.value));
  $("question").addEventListener("change", () => selectQuestion($("question").value));
  calibratable.addEventListener("change", () => showCalibrateOptions(calibratable.value));
  $("calibrate-form").addEventListener("submit", (event) => { event.preventDefault(); calibrate(); });
  $("calibrate-example").addEventListener("click", useExample);
  selectFamily(state.catalogue.families[0].name);
  document.body.dataset.ready = "true";
}

function familyOf(name) {
  return state.catalogue.families.find((f) => f.name === name);
}

function selectFamily(name) {
  const family = familyOf(name);
  $("family").value = name;
  $("family-summary").textContent = `${family.summary} (${family.source})`;
  const select = $("question");
  select.replaceChildren();
  const own = family.questions.map((q) => q.command).filter((c) => state.commands.has(c));
  const mine = element("optgroup", { label: `${name} questions` });
  for (const command of own) mine.append(element("option", { value: command, text: command }));
  if (own.length) select.append(mine);
  // Every other served command, by CLI group: sizing, simulation, percentiles...
  const groups = new Map();
  for (const command of state.commands.values()) {
    if (own.includes(command.command)) continue;
    const group = command.group || "other commands";
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group).push(command.command);
  }
  for (const [group, commands] of groups) {
    const optgroup = element("optgroup", { label: group });
    for (const command of commands) optgroup.append(element("option", { value: command, text: command }));
    select.append(optgroup);
  }
  if (family.calibratable) {
    $("calibrate-family").value = name;
    showCalibrateOptions(name);
  }
  selectQuestion(own[0] || select.querySelector("option").value);
}

function selectQuestion(name, withProfile = false) {
  const command = state.commands.get(name);
  state.command = command;
  $("question").value = name;
  $("question-help").textContent = command.help;
  const form = $("inputs");
  form.replaceChildren();
  const table = withProfile ? state.catalogue.starting_with_profile : state.catalogue.starting_inputs;
  const starting = table[name] || {};
  for (const field of command.fields) form.append(fieldControl(field, starting[field.key], schedule));
  schedule(0);
}

// --- one input per option: number + slider, text, checkbox, choice, profile ---

function sliderRange(field, value) {
  // The declared bounds, cut to four times the value shown so that a small value is not lost at one end.
  let [low, high] = field.bounds || [0, Infinity];
  const v = Number(value);
  if (!Number.isFinite(low) || low < -1e12) low = 0;
  if (Number.isFinite(v) && v > 0) high = Math.min(Number.isFinite(high) ? high : Infinity, Math.max(v * 4, low + 1));
  if (!Number.isFinite(high)) high = low + 100;
  if (Number.isFinite(v) && v > high) high = v * 2;
  if (Number.isFinite(v) && v < low) low = v;
  return [low, high];
}

function fieldControl(field, initial, onChange) {
  const value = initial !== undefined ? initial : field.default;
  const wrap = element("div", { class: "field", "data-key": field.key });
  const label = element("label", { for: `field-${field.key}`, class: "name" }, field.key);
  if (field.unit) label.append(element("span", { class: "unit", text: ` [${field.unit}]` }));
  label.append(element("code", { text: field.flag || `<${field.key}>` }));
  wrap.append(label);
  const control = element("div", { class: "control" });
  let input;
  if (field.kind === "boolean") {
    input = element("input", { type: "checkbox", id: `field-${field.key}`, name: field.key });
    input.checked = Boolean(value);
    input.addEventListener("change", () => onChange());
    control.append(input);
  } else if (field.kind === "choice") {
    input = element("select", { id: `field-${field.key}`, name: field.key });
    for (const choice of field.choices) input.append(element("option", { value: choice, text: choice }));
    if (value !== null && value !== undefined) input.value = value;
    input.addEventListener("change", () => onChange());
    control.append(input);
  } else if (field.kind === "profile" || field.kind === "profiles") {
    input = element("select", { id: `field-${field.key}`, name: field.key, "data-profile": "true" });
    fillProfiles(input, field);
    input.addEventListener("change", () => onChange());
    control.append(input);
  } else if ((field.kind === "number" || field.kind === "integer") && !field.many) {
    const declared = typeof field.declared === "number" ? field.declared : null;
    input = element("input", {
      type: "number", id: `field-${field.key}`, name: field.key, step: field.kind === "integer" ? "1" : "any",
      placeholder: field.required ? "required" : (declared !== null ? `declared ${formatValue(declared)}` : ""),
    });
    if (value !== null && value !== undefined) input.value = value;
    const slider = element("input", { type: "range", "aria-label": `${field.key} slider`, "data-slider": field.key });
    const place = () => {
      // An empty field answers with the declared value: the slider starts there.
      const shown = input.value !== "" ? input.value : declared;
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
      type: "text", id: `field-${field.key}`, name: field.key,
      placeholder: field.many ? "values separated by commas" : (field.metavar || (field.required ? "required" : "")),
    });
    if (value !== null && value !== undefined) input.value = Array.isArray(value) ? value.join(",") : value;
    if (field.suggestions.length) {
      // Declared names as suggestions; the option may take more (a mode "both").
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
  if (field.help) wrap.append(element("small", { text: field.help }));
  wrap.field = field;
  wrap.input = input;
  return wrap;
}

function fillProfiles(select, field) {
  const chosen = select.value;
  select.replaceChildren(element("option", { value: "", text: "none (shipped values)" }));
  for (const [family, profile] of state.profiles) {
    select.append(element("option", { value: family, text: profile.label }));
  }
  const mine = state.command ? familiesAsking(state.command.command) : [];
  if (chosen && state.profiles.has(chosen)) select.value = chosen;
  else select.value = mine.find((f) => state.profiles.has(f)) || "";
}

function familiesAsking(command) {
  return state.catalogue.families.filter((f) => f.questions.some((q) => q.command === command)).map((f) => f.name);
}

function fieldValue(wrap) {
  const { field, input } = wrap;
  if (field.kind === "boolean") return input.checked === Boolean(field.default) ? undefined : input.checked;
  if (field.kind === "profile" || field.kind === "profiles") {
    if (!input.value) return undefined;
    const doc = state.profiles.get(input.value).doc;
    return field.kind === "profiles" ? [doc] : doc;
  }
  const text = String(input.value).trim();
  if (text === "") return undefined;
  if (field.many) {
    const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
    return field.kind === "number" || field.kind === "integer" ? items.map(Number) : items;
  }
  if (field.kind === "number" || field.kind === "integer") return Number(text);
  return text;
}

function collect(form) {
  const body = {};
  for (const wrap of form.querySelectorAll(".field")) {
    const value = fieldValue(wrap);
    if (value !== undefined) body[wrap.field.key] = value;
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
    if (field.kind === "profile") value = "profile.json";
    if (field.kind === "profiles") value = value.map((_, i) => `profile-${i + 1}.json`);
    const items = Array.isArray(value) ? value : [value];
    if (!field.flag) { positional.push(...items.map(quote)); continue; }
    if (field.kind === "boolean") { if (value) words.push(field.flag); continue; }
    for (const item of items) words.push(field.flag, quote(item));
  }
  return [...words, ...positional].join(" ");
}

// --- answers ------------------------------------------------------------------

function schedule(delay = 150) {
  clearTimeout(state.timer);
  state.timer = setTimeout(answer, delay);
}

async function answer() {
  const command = state.command;
  const body = collect($("inputs"));
  $("cli-line").textContent = cliLine(command, body);
  const sequence = ++state.sequence;
  $("answer").classList.add("stale");
  let reply, payload;
  try {
    reply = await fetch(`${command.url}?view=page`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    payload = await reply.json();
    // A long simulation becomes a job (202): poll it until it ends.
    while (reply.status === 202 && sequence === state.sequence) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const job = await (await fetch(payload.url)).json();
      if (job.status === "done") { reply = { ok: true, status: 200 }; payload = job.result; }
      else if (job.status === "failed" || job.status === "cancelled") { reply = { ok: false, status: 422 }; payload = job.error || job; }
    }
  } catch (error) {
    payload = { error: String(error), kind: "NetworkError" };
  }
  if (sequence !== state.sequence) return;
  if (!reply || !reply.ok) {
    showError($("answer-error"), payload);
    document.body.dataset.answered = String(sequence);
    return;
  }
  $("answer-error").hidden = true;
  $("answer").classList.remove("stale");
  $("answer-title").textContent = payload.title || command.command;
  renderTable($("answer-table"), payload.columns, payload.rows);
  renderNotes($("answer-notes"), payload.notes);
  renderCharts($("charts"), payload.plot, "answer");
  $("answer-url").textContent = command.url;
  $("answer-json").textContent = JSON.stringify(payload.data, null, 2);
  document.body.dataset.answered = String(sequence);
}

function showError(node, payload) {
  node.textContent = `${payload.error || "request failed"} (${payload.kind || "error"})`;
  node.hidden = false;
}

const MAX_ROWS = 500;

function renderTable(table, columns, rows) {
  table.replaceChildren();
  if (!rows || !rows.length) return;
  columns = columns && columns.length ? columns : Object.keys(rows[0]);
  const numeric = columns.map((c) => rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === "number"));
  const head = element("tr");
  columns.forEach((c, i) => head.append(element("th", { class: numeric[i] ? null : "text", text: c })));
  const body = element("tbody");
  for (const row of rows.slice(0, MAX_ROWS)) {
    const tr = element("tr");
    columns.forEach((c, i) => tr.append(element("td", { class: numeric[i] ? null : "text", text: formatValue(row[c]) })));
    body.append(tr);
  }
  if (rows.length > MAX_ROWS) {
    body.append(element("tr", {}, element("td", { colspan: columns.length, class: "text",
      text: `… ${rows.length - MAX_ROWS} more rows (the API answer has them all)` })));
  }
  table.append(element("thead", {}, head), body);
}

function renderNotes(list, notes) {
  list.replaceChildren(...(notes || []).map((n) => element("li", { text: n })));
}

function points(xs, ys) {
  const out = [];
  for (let i = 0; i < xs.length; i++) if (xs[i] !== null && ys[i] !== null) out.push({ x: xs[i], y: ys[i] });
  return out;
}

function datasets(series) {
  const sets = [];
  let color = 0;
  for (const s of series) {
    if (s.kind === "band") {
      // Two edges, the upper filled down to the lower.
      sets.push({ label: `${s.label} (low)`, data: points(s.x, s.y), showLine: true, pointRadius: 0,
                  borderWidth: 0, borderColor: "transparent", fill: false, band: true });
      sets.push({ label: s.label, data: points(s.x, s.y_high), showLine: true, pointRadius: 0, borderWidth: 0,
                  borderColor: "transparent", backgroundColor: "rgba(31, 111, 178, 0.18)", fill: "-1" });
      continue;
    }
    const hue = COLORS[color++ % COLORS.length];
    const set = { label: s.label, data: points(s.x, s.y), borderColor: hue, backgroundColor: hue, borderWidth: 2,
                  showLine: s.kind !== "points" && s.kind !== "bound", pointRadius: 0, fill: false };
    if (s.kind === "points" || s.kind === "linepoints") set.pointRadius = 3;
    if (s.kind === "bound") { set.pointRadius = 5; set.pointStyle = "triangle"; set.rotation = 180; }
    if (s.kind === "dashed") set.borderDash = [6, 4];
    if (set.showLine && set.data.length < 2) set.pointRadius = 3;
    sets.push(set);
  }
  return sets;
}

function renderCharts(container, panels, key) {
  for (const chart of state.charts[key]) chart.destroy();
  state.charts[key] = [];
  container.replaceChildren();
  for (const panel of panels || []) {
    const categorical = panel.series.some((s) => s.x.some((x) => typeof x === "string"));
    const canvas = element("canvas", { role: "img", "aria-label": panel.title });
    container.append(element("figure", {}, canvas));
    const labels = categorical ? [...new Set(panel.series.flatMap((s) => s.x))] : undefined;
    const chart = new Chart(canvas, {
      type: "scatter",
      data: { labels, datasets: datasets(panel.series) },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          title: { display: true, text: panel.title },
          legend: { labels: { boxWidth: 12, filter: (item, data) => !data.datasets[item.datasetIndex].band } },
        },
        scales: {
          x: { type: categorical ? "category" : "linear", title: { display: true, text: panel.x_label } },
          y: { title: { display: true, text: panel.y_label } },
        },
      },
    });
    state.charts[key].push(chart);
  }
}

// --- calibration ----------------------------------------------------------------

function showCalibrateOptions(familyName) {
  const family = familyOf(familyName);
  const options = $("calibrate-options");
  options.replaceChildren();
  const settings = family.example_settings || {};
  // Options that belong to some family (servers, stations...) show only for theirs.
  const owned = new Set(state.catalogue.families.flatMap((f) => f.calibrate_options));
  for (const field of state.catalogue.calibrate.fields) {
    if (field.key === "columns") continue;
    if (owned.has(field.key) && !family.calibrate_options.includes(field.key)) continue;
    options.append(fieldControl(field, settings[field.key], () => {}));
  }
  $("calibrate-columns").textContent = family.example
    ? `Columns as in the shipped example ${family.example} (iosizer calibrate ${family.name} --columns).`
    : "";
}

async function useExample() {
  const name = $("calibrate-family").value;
  const reply = await fetch(`/api/families/${encodeURIComponent(name)}/example`);
  if (!reply.ok) { showError($("calibrate-error"), await reply.json()); return; }
  const file = new File([await reply.blob()], familyOf(name).example, { type: "text/csv" });
  const transfer = new DataTransfer();
  transfer.items.add(file);
  $("calibrate-file").files = transfer.files;
  calibrate();
}

async function calibrate() {
  const family = $("calibrate-family").value;
  const files = $("calibrate-file").files;
  const error = $("calibrate-error");
  if (!files.length) { showError(error, { error: "choose a data file first", kind: "InputError" }); return; }
  const form = new FormData();
  for (const file of files) form.append("file", file, file.name);
  for (const [key, value] of Object.entries(collect($("calibrate-options")))) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, String(item));
  }
  $("calibrate-run").disabled = true;
  let reply, payload;
  try {
    // The custom header makes this a non-simple request: the server refuses a form without it, so a page
    // of another site cannot start a calibration through the planner's browser.
    reply = await fetch(`/api/calibrate/${encodeURIComponent(family)}?view=page`, {
      method: "POST", headers: { "X-Iosizer": "1" }, body: form,
    });
    payload = await reply.json();
  } catch (failure) {
    payload = { error: String(failure), kind: "NetworkError" };
  } finally {
    $("calibrate-run").disabled = false;
  }
  if (!reply || !reply.ok) { showError(error, payload); $("calibrate-result").hidden = true; return; }
  error.hidden = true;
  $("calibrate-result").hidden = false;
  $("calibrate-title").textContent = payload.title;
  renderTable($("calibrate-table"), payload.columns, payload.rows);
  renderNotes($("calibrate-notes"), payload.notes);
  renderCharts($("calibrate-charts"), payload.plot, "calibrate");
  const fit = payload.data;
  state.profiles.set(family, { doc: fit.profile, label: `${family} fitted to ${files[0].name} (R² ${formatValue(fit.r2)})` });
  offerProfile(family, fit.profile);
  document.body.dataset.calibrated = family;
}

function offerProfile(family, profile) {
  const use = $("calibrate-use");
  const download = element("a", {
    href: URL.createObjectURL(new Blob([JSON.stringify(profile, null, 2)], { type: "application/json" })),
    download: `${family}-profile.json`, text: "download the profile",
  });
  const asking = state.catalogue.families.find((f) => f.name === family).questions
    .map((q) => state.commands.get(q.command)).filter((c) => c && c.fields.some((f) => f.kind.startsWith("profile")));
  use.replaceChildren(`Profile ready; every what-if with a profile field can use it (`, download, ").");
  // Show it at work: the family's first question that takes a profile, with the profile chosen.
  if (asking.length) {
    if ($("family").value !== family) selectFamily(family);
    selectQuestion(asking[0].command, true);
  } else {
    for (const select of document.querySelectorAll("select[data-profile]")) fillProfiles(select, null);
    schedule(0);
  }
}

boot().catch((failure) => showError($("answer-error"), { error: `the page could not start: ${failure}`, kind: "PageError" }));
