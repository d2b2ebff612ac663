// parplan's web page: fills the form from ListModels / ListSystems and, in
// "recommend" mode, asks /v1/Recommend for plans (with each plan's
// uncertainty, ties with plan 1 and the rule-of-thumb comparison), or in
// "check" mode sends the user's own config (fields from fields.js) to
// /v1/Validate, /v1/EstimateMemory and /v1/EstimatePerformance; then draws
// the selected plan from /plot (SVGs made by our own server, inserted
// inline). The check answer is drawn by check.js, numbers formatted by
// format.js. URL values are checked like the form's: a bad one is shown in its
// field with the error beside it and nothing is sent. Plain ES2017, no
// dependencies.
//
// document.body.dataset.state (mirrored on #status) is "loading" while a
// request is in flight, "done" when everything asked for is drawn, and
// "error" after a failure, so headless tests can wait for the page.
'use strict';

(function () {
  const GiB = 1073741824;
  const $ = (id) => document.getElementById(id);

  const els = {
    form: $('plan-form'),
    model: $('model'),
    system: $('system'),
    gpus: $('gpus'),
    seq: $('seq'),
    precision: $('precision'),
    objective: $('objective'),
    button: $('plan-button'),
    status: $('status'),
    error: $('error'),
    results: $('results'),
    infeasible: $('infeasible'),
    plansBody: document.querySelector('#plans tbody'),
    plansMeta: $('plans-meta'),
    answerReasons: $('answer-reasons'),
    answerReasonsBox: $('answer-reasons-box'),
    detail: $('plan-detail'),
    planTitle: $('plan-title'),
    planReasons: $('plan-reasons'),
    rankMap: $('rank-map'),
    memoryChart: $('memory-chart'),
    stepTime: $('step-time'),
    bridge: $('bridge-overrides'),
    pythonTab: $('bridge-python-tab'),
    cliTab: $('bridge-cli-tab'),
    copy: $('copy-button'),
    modeRecommend: $('mode-recommend'),
    modeCheck: $('mode-check'),
    modeHelp: $('mode-help'),
    checkFields: $('check-fields'),
    systemFields: $('system-fields'),
    modelJson: $('model-json'),
    customModel: $('custom-model'),
    customSystem: $('custom-system'),
    groups: $('groups'),
    plansNote: $('plans-note'),
    checkResults: $('check-results'),
    rankMapCard: document.querySelector('figure[aria-label="Rank map"]'),
  };

  // What the page currently shows.
  const state = {
    mode: 'recommend',  // or 'check'
    request: null,   // the last Recommend request sent ({model, placement, config} in check mode)
    answer: null,    // the last Recommend answer
    plans: [],       // its plans (check mode: the one config checked)
    startingPoint: null,  // the answer's rule-of-thumb plan (table index -1)
    systems: [],     // ListSystems, for the custom system's placeholders
    selected: -2,    // index into plans; -1 = the starting point
    plotSeq: 0,      // increases with each /plot request; stale answers are dropped
    planSeq: 0,      // the same for /v1/Recommend
    firstPlan: 0,    // the plan drawn after a Recommend (URL ?plan=N, 1-based)
    bridge: { python: '', cli: '' },
    bridgeFormat: 'python',
  };

  // ---------------------------------------------------------------- status

  // Sets the page state ("loading" | "done" | "error") and the status line.
  function setState(name, text) {
    document.body.dataset.state = name;
    els.status.dataset.state = name;
    els.status.textContent = text || '';
    els.button.disabled = name === 'loading';
  }

  // An Error carrying the server's error object ({code, message, field_violations}).
  class ApiError extends Error {
    constructor(status, body) {
      const e = (body && body.error) || {};
      super(e.message || ('HTTP ' + status));
      this.status = status;
      this.code = e.code || ('HTTP_' + status);
      this.violations = Array.isArray(e.field_violations) ? e.field_violations : [];
    }
  }

  // Shows `err` (an ApiError or any Error) in #error and sets state "error".
  function showError(err, what) {
    const box = els.error;
    box.textContent = '';
    const title = document.createElement('div');
    title.className = 'error-title';
    title.textContent = (what ? what + ' failed: ' : '') + (err.code ? err.code + ': ' : '') + err.message;
    box.appendChild(title);
    if (err.violations && err.violations.length) {
      const ul = document.createElement('ul');
      for (const v of err.violations) {
        const li = document.createElement('li');
        const field = document.createElement('code');
        field.textContent = v.field || '(request)';
        li.appendChild(field);
        li.appendChild(document.createTextNode(' ' + (v.description || '')));
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
    box.hidden = false;
    setState('error', (what || 'Request') + ' failed.');
  }

  function clearError() {
    els.error.hidden = true;
    els.error.textContent = '';
  }

  // ---------------------------------------------------------------- HTTP

  // The bearer token for servers started with one: typed into #token (shown
  // after the first 401) and kept for this tab only.
  function bearerToken() {
    const field = document.getElementById('token');
    if (field && field.value) sessionStorage.setItem('parplan-token', field.value);
    return sessionStorage.getItem('parplan-token') || '';
  }

  function askForToken() {
    sessionStorage.removeItem('parplan-token');
    const wrap = document.getElementById('token-field');
    if (wrap) wrap.hidden = false;
  }

  // POSTs `body` as JSON to `path`; resolves with the parsed answer, rejects
  // with an ApiError on a non-2xx status (or a body that is not JSON).
  async function post(path, body) {
    let res;
    try {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
      const token = bearerToken();
      if (token) headers.Authorization = 'Bearer ' + token;
      res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body || {}) });
    } catch (e) {
      throw new ApiError(0, { error: { code: 'UNAVAILABLE', message: 'cannot reach the server (' + e.message + ')' } });
    }
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : {};
    } catch (e) {
      json = null;
    }
    if (res.status === 401) askForToken();
    if (!res.ok) {
      throw new ApiError(res.status, json || { error: { message: 'HTTP ' + res.status + ': ' + text.slice(0, 300) } });
    }
    if (json === null) throw new ApiError(res.status, { error: { code: 'BAD_RESPONSE', message: 'the answer is not JSON' } });
    return json;
  }

  // ---------------------------------------------------------------- formatting

  const { num, fmt, gib, seconds, el, fillList, pct } = window.ParplanFormat;

  // ---------------------------------------------------------------- form

  const F = window.ParplanFields;
  const CUSTOM = '__custom__';

  // URL keys the page reads besides the config and system fields.
  const PAGE_KEYS = ['mode', 'model', 'system', 'gpus', 'seq', 'seq_length', 'precision', 'objective', 'plan', 'run', 'groups', 'model-json'];

  // The field definition for URL / form key `key` (config or system), or null.
  function fieldOf(key) {
    return F.CONFIG_FIELDS.find((f) => f.key === key) || F.SYSTEM_FIELDS.find((f) => f.key === key) || null;
  }

  // An input (or a select for enum and bool fields) for field `f`, id `prefix + key`.
  function fieldInput(f, prefix) {
    const wrap = el('div', 'field');
    const label = el('label', '', f.label);
    label.htmlFor = prefix + f.key;
    wrap.appendChild(label);
    // The default, short: "[none]" in the help -> "none"; long ones stay in the tooltip.
    const bracket = /\[([^\]]*)\]/.exec(f.help || '');
    const def = bracket && bracket[1].length <= 12 ? bracket[1] : '';
    let input;
    if (f.kind === 'enum' || f.kind === 'bool') {
      input = document.createElement('select');
      const first = el('option', '', def ? 'default: ' + def : 'default');
      first.value = '';
      input.appendChild(first);
      for (const o of f.kind === 'bool' ? ['true', 'false'] : f.options) {
        const opt = el('option', '', f.kind === 'bool' ? (o === 'true' ? 'on' : 'off') : o);
        opt.value = o;
        input.appendChild(opt);
      }
    } else {
      input = document.createElement('input');
      input.type = 'text';
      if (f.kind === 'int') input.inputMode = 'numeric';
      if (f.kind === 'number') input.inputMode = 'decimal';
      input.placeholder = def || (bracket ? 'default' : '');
    }
    input.id = prefix + f.key;
    input.dataset.key = f.key;
    input.title = f.key + (f.help ? ': ' + f.help : '');
    wrap.appendChild(input);
    const err = el('small', 'field-error');
    err.dataset.for = f.key;
    err.hidden = true;
    wrap.appendChild(err);
    return wrap;
  }

  // Builds the check-mode config fields (grouped) and the custom system fields.
  function buildFields() {
    const groups = new Map();
    for (const f of F.CONFIG_FIELDS) {
      if (f.key === 'seq' || f.key === 'precision') continue;  // the main row's
      if (!groups.has(f.group)) groups.set(f.group, []);
      groups.get(f.group).push(f);
    }
    els.checkFields.textContent = '';
    for (const [name, fields] of groups) {
      const set = el('fieldset', 'field-group');
      set.appendChild(el('legend', '', name));
      for (const f of fields) set.appendChild(fieldInput(f, 'f-'));
      els.checkFields.appendChild(set);
    }
    els.systemFields.textContent = '';
    for (const f of F.SYSTEM_FIELDS) els.systemFields.appendChild(fieldInput(f, 's-'));
  }

  // The input holding key `key`: the main row's for gpus / seq / precision / objective.
  function inputOf(key) {
    if (key === 'gpus') return els.gpus;
    if (key === 'seq') return els.seq;
    if (key === 'precision') return els.precision;
    if (key === 'objective') return els.objective;
    if (key === 'model-json') return els.modelJson;
    return $('f-' + key) || $('s-' + key);
  }

  // Shows `message` under the field `key` (or clears it when empty).
  function setFieldError(key, message) {
    const err = document.querySelector('.field-error[data-for="' + key + '"]');
    const input = inputOf(key) || (key === 'model' ? els.model : key === 'system' ? els.system : null);
    if (err) {
      err.textContent = message || '';
      err.hidden = !message;
    }
    if (input) input.classList.toggle('invalid', !!message);
    if (message && (key in systemKeys)) els.customSystem.open = true;
    if (message && key === 'model-json') els.customModel.open = true;
  }
  const systemKeys = Object.fromEntries(F.SYSTEM_FIELDS.map((f) => [f.key, true]));

  function clearFieldErrors() {
    for (const e of document.querySelectorAll('.field-error')) {
      e.hidden = true;
      e.textContent = '';
    }
    for (const e of document.querySelectorAll('.invalid, .rule-error')) e.classList.remove('invalid', 'rule-error');
  }

  // Sets the page's mode ("recommend" | "check").
  function setMode(mode) {
    state.mode = mode === 'check' ? 'check' : 'recommend';
    const check = state.mode === 'check';
    els.modeRecommend.setAttribute('aria-pressed', String(!check));
    els.modeCheck.setAttribute('aria-pressed', String(check));
    for (const e of document.querySelectorAll('.check-only')) e.hidden = !check;
    for (const e of document.querySelectorAll('.recommend-only')) e.hidden = check;
    els.button.textContent = check ? 'Check' : 'Plan';
    els.gpus.placeholder = check ? 'smallest valid world' : 'fewest that fit';
    els.modeHelp.textContent = check
      ? 'Enter your own parallelism; empty fields take the default in brackets.'
      : 'The best Megatron parallelism plans for a model on a system.';
  }

  // Fills the model select, grouped by kind; incomplete models are listed but disabled.
  function fillModels(models) {
    const groups = new Map();
    for (const m of models) {
      const kind = m.kind || 'other';
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(m);
    }
    els.model.textContent = '';
    for (const [kind, list] of groups) {
      const group = document.createElement('optgroup');
      group.label = kind;
      for (const m of list) {
        const opt = el('option', '', (m.name || m.id) + ' (' + m.id + ')' + (m.complete ? '' : ' (incomplete)'));
        opt.value = m.id;
        opt.disabled = !m.complete;
        if (!m.complete && m.missing_fields && m.missing_fields.length) opt.title = 'missing: ' + m.missing_fields.join(', ');
        group.appendChild(opt);
      }
      els.model.appendChild(group);
    }
    const custom = el('option', '', 'custom model (pasted below)');
    custom.value = CUSTOM;
    els.model.appendChild(custom);
    const first = models.find((m) => m.complete && m.id === 'llama3_70b') || models.find((m) => m.complete);
    if (first) els.model.value = first.id;
  }

  // Fills the system select: "id (name, N GPUs/node, HBM)"; keeps the list for placeholders.
  function fillSystems(systems) {
    state.systems = systems;
    els.system.textContent = '';
    for (const s of systems) {
      const extra = [];
      if (s.gpus_per_node) extra.push(s.gpus_per_node + ' GPUs/node');
      if (s.nvlink_domain_size && s.nvlink_domain_size !== s.gpus_per_node) extra.push('NVLink domain ' + s.nvlink_domain_size);
      if (s.hbm_gb) extra.push(s.hbm_gb + ' GB');
      const opt = el('option', '', s.id + ': ' + (s.name || s.id) + (extra.length ? ' · ' + extra.join(', ') : ''));
      opt.value = s.id;
      els.system.appendChild(opt);
    }
    const custom = el('option', '', 'custom system (no base; fields below)');
    custom.value = CUSTOM;
    els.system.appendChild(custom);
    if (systems.some((s) => s.id === 'h100-sxm')) els.system.value = 'h100-sxm';
    systemPlaceholders();
  }

  // The custom-system inputs' placeholders show the selected system's figures.
  function systemPlaceholders() {
    // Without a base, figures not given come from the architecture's reference system.
    const reference = { ampere: 'a100-80gb', hopper: 'h100-sxm', blackwell: 'b200' };
    const archInput = $('s-gpu-arch');
    const id = els.system.value === CUSTOM ? reference[archInput && archInput.value] : els.system.value;
    const s = (state.systems || []).find((x) => x.id === id);
    const base = {
      'gpu-arch': s && s.gpu_arch,
      'hbm-gib': s && s.hbm_gb ? (s.hbm_gb * 1e9 / GiB).toFixed(1) : '',
      'hbm-tbps': s && s.hbm_bw_tbps,
      'bf16-tflops': s && s.bf16_dense_tflops,
      'fp8-tflops': s && s.fp8_dense_tflops,
      'fp4-tflops': s && s.fp4_dense_tflops,
      'gpus-per-node': s && s.gpus_per_node,
      'nvlink-domain': s && s.nvlink_domain_size,
      'nvlink-gbps': s && s.nvlink_gbps_unidirectional ? s.nvlink_gbps_unidirectional * 2 : '',
      'scaleout-gbps': s && s.scaleout_gbps_per_gpu,
      'pcie-gbps': s && s.pcie_gbps_unidirectional,
    };
    for (const f of F.SYSTEM_FIELDS) {
      const input = $('s-' + f.key);
      if (!input || input.tagName === 'SELECT') continue;
      const v = base[f.key];
      input.placeholder = v ? String(v) + (s ? ' (' + s.id + ')' : '') : f.help || '';
    }
  }

  // Selects `value` in `select`, adding an option for it when it is not listed
  // (a URL may name an alias or a Hugging Face id the server resolves).
  function selectValue(select, value) {
    if (!value) return;
    const options = Array.from(select.options);
    const match = options.find((o) => o.value === value) ||
      options.find((o) => o.value.toLowerCase().replace(/-/g, '_') === value.toLowerCase().replace(/-/g, '_'));
    if (match) {
      select.value = match.value;
      return;
    }
    const opt = el('option', '', value);
    opt.value = value;
    select.insertBefore(opt, select.firstChild);
    select.value = value;
  }

  // Puts the raw `text` into the input for `key` so that the box shows what
  // the URL said (a select gets an option for an unknown value).
  function putRaw(key, text) {
    const input = inputOf(key);
    if (!input) return;
    if (input.tagName === 'SELECT') {
      const v = String(text).toLowerCase();
      const known = Array.from(input.options).find((o) => o.value === v || (v === 'on' || v === '1') && o.value === 'true' || (v === 'off' || v === '0') && o.value === 'false');
      if (known) {
        input.value = known.value;
      } else {
        selectValue(input, String(text));
      }
    } else {
      input.defaultValue = text;  // also in the serialised DOM (headless tests)
      input.value = text;
    }
  }

  // Fills the form from the URL. Returns {run, errors}: errors maps a field
  // key to its message (nothing runs while there is one).
  function applyUrl() {
    const p = new URLSearchParams(window.location.search);
    const errors = {};
    setMode(p.get('mode') === 'check' ? 'check' : 'recommend');
    if (p.has('mode') && !['check', 'recommend'].includes(p.get('mode'))) {
      errors.mode = "'" + p.get('mode') + "' is not a mode; allowed recommend, check";
    }
    const model = p.get('model');
    if (model === 'custom' || (!model && p.has('model-json'))) {
      els.model.value = CUSTOM;
    } else {
      selectValue(els.model, model);
    }
    if (p.has('model-json')) {
      els.modelJson.value = p.get('model-json');
      els.customModel.open = true;
    }
    const system = p.get('system');
    if (system === 'custom') {
      els.system.value = CUSTOM;
    } else {
      selectValue(els.system, system);
    }
    if (p.has('gpus')) putRaw('gpus', p.get('gpus'));
    const seq = p.get('seq') || p.get('seq_length');
    if (seq) putRaw('seq', seq);
    if (p.get('precision')) selectValue(els.precision, p.get('precision'));
    if (p.get('objective')) selectValue(els.objective, p.get('objective'));
    if (p.get('groups') !== null) {
      if (['', 'tp', 'cp', 'ep', 'dp', 'pp'].includes(p.get('groups'))) els.groups.value = p.get('groups');
      else errors['url:groups'] = "'" + p.get('groups') + "' is not a group kind; allowed tp, cp, ep, dp, pp";
    }
    for (const [key, value] of p.entries()) {
      if (PAGE_KEYS.includes(key)) continue;
      const f = fieldOf(key);
      if (!f) {
        errors['url:' + key] = "unknown URL parameter '" + key + "'";
        continue;
      }
      putRaw(key, value);
      if (systemKeys[key]) els.customSystem.open = true;
    }
    const plan = parseInt(p.get('plan') || '1', 10);
    state.firstPlan = plan > 0 ? plan - 1 : 0;
    const form = readForm();
    Object.assign(errors, form.errors);
    return { run: p.get('run') === '1' || p.get('run') === 'true', errors };
  }

  // Reads and checks the whole form. Returns {errors, request} where request
  // is {model, placement, config} (config: every field given).
  function readForm() {
    const errors = {};
    const values = {};
    const check = state.mode === 'check';
    const gpus = F.parseField({ kind: 'int', min: 1, max: 1048576 }, els.gpus.value);
    if (!gpus.ok) errors.gpus = gpus.error;
    const seq = F.parseField(fieldOf('seq'), els.seq.value);
    if (!seq.ok) errors.seq = seq.error;
    else values.seq = seq.value;
    const precision = F.parseField(fieldOf('precision'), els.precision.value);
    if (!precision.ok) errors.precision = precision.error;
    else values.precision = precision.value;
    if (!['throughput', 'fewest-gpus', 'headroom'].includes(els.objective.value)) {
      errors.objective = "'" + els.objective.value + "' is not an objective; allowed throughput, fewest-gpus, headroom";
    }
    for (const f of F.CONFIG_FIELDS) {
      if (f.key === 'seq' || f.key === 'precision') continue;
      const input = $('f-' + f.key);
      const r = F.parseField(f, input ? input.value : '');
      if (!r.ok) errors[f.key] = r.error;
      else if (check) values[f.key] = r.value;
    }
    const systemValues = {};
    for (const f of F.SYSTEM_FIELDS) {
      const r = F.parseField(f, $('s-' + f.key).value);
      if (!r.ok) errors[f.key] = r.error;
      else systemValues[f.key] = r.value;
    }
    let model = { id: els.model.value };
    if (els.model.value === CUSTOM) {
      const m = F.modelRef(els.modelJson.value);
      if (!m.ok) errors['model-json'] = m.error;
      else model = m.ref;
    }
    const placement = {};
    if (els.system.value !== CUSTOM) placement.system = els.system.value;
    const spec = F.buildSystemSpec(systemValues);
    if (Object.keys(spec).length) placement.system_spec = spec;
    if (els.system.value === CUSTOM && !spec.gpu_arch) {
      errors['gpu-arch'] = 'a custom system without a base needs its GPU architecture (ampere, hopper or blackwell)';
    }
    if (gpus.ok && gpus.value !== undefined) placement.gpus = gpus.value;
    return { errors, request: { model, placement, config: F.buildConfig(values) }, gpus: gpus.value };
  }

  // Shows `errors` beside their fields and a summary in #error; true when there were any.
  function showFieldErrors(errors) {
    clearFieldErrors();
    const keys = Object.keys(errors);
    if (!keys.length) return false;
    const err = new Error('fix the marked field' + (keys.length === 1 ? '' : 's') + ' (nothing was sent)');
    err.code = 'INVALID_INPUT';
    err.violations = [];
    for (const key of keys) {
      if (key.startsWith('url:')) {
        err.violations.push({ field: key.slice(4), description: errors[key] });
      } else {
        setFieldError(key, errors[key]);
        err.violations.push({ field: key, description: errors[key] });
      }
    }
    showError(err, 'Input');
    return true;
  }

  // The form's values under the CLI's flag names, for the address bar.
  function urlParams() {
    const p = new URLSearchParams();
    if (state.mode === 'check') p.set('mode', 'check');
    p.set('model', els.model.value === CUSTOM ? 'custom' : els.model.value);
    if (els.model.value === CUSTOM) p.set('model-json', els.modelJson.value.trim());
    p.set('system', els.system.value === CUSTOM ? 'custom' : els.system.value);
    if (els.gpus.value) p.set('gpus', els.gpus.value.trim());
    if (els.seq.value) p.set('seq', els.seq.value.trim());
    if (els.precision.value) p.set('precision', els.precision.value);
    if (state.mode !== 'check' && els.objective.value !== 'throughput') p.set('objective', els.objective.value);
    if (state.mode === 'check') {
      for (const f of F.CONFIG_FIELDS) {
        const input = $('f-' + f.key);
        if (input && input.value.trim()) p.set(f.key, input.value.trim());
      }
    }
    for (const f of F.SYSTEM_FIELDS) {
      const v = $('s-' + f.key).value.trim();
      if (v) p.set(f.key, v);
    }
    if (els.groups.value) p.set('groups', els.groups.value);
    p.set('run', '1');
    return p;
  }

  // The page's URL with `config` (a ParallelConfig answer) in place of the
  // form's config fields: a link that checks that config.
  function configUrl(config) {
    const p = urlParams();
    for (const f of F.CONFIG_FIELDS) p.delete(f.key);
    p.set('mode', 'check');
    for (const f of F.CONFIG_FIELDS) {
      let v = config[f.json];
      if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length)) continue;
      if (f.key === 'grad-dtype') v = v ? 'fp32' : 'bf16';
      p.set(f.key, Array.isArray(v) ? v.join(',') : String(v));
    }
    p.set('run', '1');
    return p;
  }

  // Mirrors the form in the address bar, so the page can be shared or reloaded.
  function updateUrl() {
    try {
      window.history.replaceState(null, '', '?' + urlParams().toString());
    } catch (e) {
      // file:// or a sandbox: not worth failing over.
    }
  }

  // ---------------------------------------------------------------- plans

  // Memory badge of a plan: fits / tight / does not fit.
  function memoryBadge(plan) {
    if (!plan.fits) return el('span', 'badge badge-bad', 'does not fit');
    if (plan.tight) return el('span', 'badge badge-warn', 'tight');
    return el('span', 'badge badge-ok', 'fits');
  }

  // The performance model's typical error for `plan` (a fraction), from the
  // plan itself or from the EstimatePerformance answer fetched for it.
  function uncertaintyOf(plan) {
    if (!plan) return NaN;
    if (Number.isFinite(num(plan.uncertainty))) return num(plan.uncertainty);
    if (plan._perf && Number.isFinite(num(plan._perf.uncertainty))) return num(plan._perf.uncertainty);
    return NaN;
  }
  function perfField(plan, name) {
    if (plan[name] !== undefined) return plan[name];
    return plan._perf ? plan._perf[name] : undefined;
  }

  // "+3.4%" / "−2.0%" of `a` against `b`.
  function versus(a, b) {
    const x = num(a), y = num(b);
    if (!(x > 0 && y > 0)) return '–';
    const d = (x / y - 1) * 100;
    return (d >= 0 ? '+' : '−') + Math.abs(d).toFixed(1) + '%';
  }

  // Whether plan `i` is a tie with plan 1: its tokens/s within plan 1's uncertainty.
  function isTie(i) {
    if (i === 0) return false;
    const first = state.plans[0], u = uncertaintyOf(first);
    const a = num(first.tokens_per_s_per_gpu), b = num(state.plans[i].tokens_per_s_per_gpu);
    return Number.isFinite(u) && a > 0 && b > 0 && (a - b) / a <= u;
  }

  // One table row for plan `i` (-1: the rule-of-thumb starting point).
  function planRow(plan, i) {
    const tr = document.createElement('tr');
    tr.tabIndex = 0;
    tr.dataset.index = String(i);
    tr.setAttribute('aria-selected', 'false');
    if (i < 0) tr.className = 'starting-point';
    tr.appendChild(el('td', 'num rank', i < 0 ? 'rule' : String(plan.rank || i + 1)));
    const label = el('td', 'label');
    label.appendChild(el('span', 'plan-label', plan.label || ''));
    if (plan.gpus) label.appendChild(el('span', 'muted plan-gpus', ' · ' + plan.gpus + ' GPUs, DP=' + (plan.dp || '?')));
    if (i < 0) label.appendChild(el('span', 'muted plan-gpus', ' · rule of thumb (reference §3)'));
    if (plan.reasons && plan.reasons.length) {
      const why = el('details', 'plan-why');
      why.appendChild(el('summary', '', 'why'));
      const ul = el('ul');
      fillList(ul, plan.reasons);
      why.appendChild(ul);
      why.addEventListener('click', (e) => e.stopPropagation());
      label.appendChild(why);
    }
    tr.appendChild(label);
    const tps = el('td', 'num');
    tps.appendChild(el('span', '', fmt(plan.tokens_per_s_per_gpu, 0)));
    if (i >= 0 && isTie(i)) {
      const tie = el('span', 'badge badge-tie', 'tie');
      tie.title = 'within the model\'s ±' + pct(uncertaintyOf(state.plans[0])) + ' of plan 1: measure before choosing';
      tps.appendChild(document.createTextNode(' '));
      tps.appendChild(tie);
    }
    tr.appendChild(tps);
    const u = uncertaintyOf(plan);
    const ucell = el('td', 'num muted', Number.isFinite(u) ? '±' + pct(u) : '…');
    const p90 = num(perfField(plan, 'uncertainty_p90'));
    const basis = perfField(plan, 'uncertainty_basis');
    if (Number.isFinite(u)) ucell.title = 'typical error ±' + pct(u) + (Number.isFinite(p90) ? ', 90th percentile ±' + pct(p90) : '') + (basis ? '; ' + basis : '');
    tr.appendChild(ucell);
    const peak = num(perfField(plan, 'peak_tflops'));
    const mfu = el('td', 'num', Number.isFinite(num(plan.mfu)) ? (num(plan.mfu) * 100).toFixed(1) + '%' : '–');
    if (peak > 0) mfu.appendChild(el('span', 'muted sub', ' of ' + fmt(peak, 0) + ' TF'));
    tr.appendChild(mfu);
    const mem = el('td', 'num');
    mem.appendChild(el('span', '', gib(plan.memory_peak_bytes)));
    mem.appendChild(el('span', 'muted', ' / ' + gib(plan.memory_capacity_bytes) + ' GiB'));
    const cap = num(plan.memory_capacity_bytes);
    const peakMem = num(plan.memory_peak_bytes);
    if (cap > 0 && peakMem >= 0) {
      const bar = el('span', 'membar');
      const fill = el('span', 'membar-fill' + (peakMem > cap ? ' over' : plan.tight ? ' tight' : ''));
      fill.style.width = Math.min(100, (peakMem / cap) * 100).toFixed(1) + '%';
      bar.appendChild(fill);
      mem.appendChild(bar);
    }
    tr.appendChild(mem);
    const badge = el('td');
    badge.appendChild(memoryBadge(plan));
    tr.appendChild(badge);
    tr.appendChild(el('td', 'num', seconds(plan.step_time_s)));
    const sp = state.startingPoint;
    tr.appendChild(el('td', 'num', i < 0 ? '—' : sp ? versus(plan.tokens_per_s_per_gpu, sp.tokens_per_s_per_gpu) : '–'));
    tr.addEventListener('click', () => selectPlan(i));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        selectPlan(i);
      }
    });
    return tr;
  }

  // The plan at table index `i` (-1: the starting point).
  const planAt = (i) => (i < 0 ? state.startingPoint : state.plans[i]);

  // Redraws the plans table and its note from state.
  function renderPlans() {
    els.plansBody.textContent = '';
    state.plans.forEach((plan, i) => els.plansBody.appendChild(planRow(plan, i)));
    if (state.startingPoint) els.plansBody.appendChild(planRow(state.startingPoint, -1));
    if (!state.plans.length) {
      const tr = document.createElement('tr');
      const td = el('td', 'muted empty', 'No plans.');
      td.colSpan = 9;
      tr.appendChild(td);
      els.plansBody.insertBefore(tr, els.plansBody.firstChild);
    }
    markRow(state.selected);
    const notes = [];
    const u = uncertaintyOf(state.plans[0]);
    if (Number.isFinite(u)) {
      const ties = state.plans.map((p, i) => i).filter((i) => isTie(i)).map((i) => i + 1);
      const basis = perfField(state.plans[0], 'uncertainty_basis');
      notes.push('The performance model\'s typical error for plan 1 is ±' + pct(u) + (basis ? ' (' + basis.replace(/\.$/, '') + ')' : '') + '. ' +
        (ties.length ? 'Plan' + (ties.length > 1 ? 's ' : ' ') + ties.join(', ') + (ties.length > 1 ? ' are' : ' is') + ' within it of plan 1: treat them as ties and measure.' :
          'No other plan is within it of plan 1.'));
    }
    if (state.answer && state.answer.starting_point_comparison) notes.push(state.answer.starting_point_comparison);
    els.plansNote.textContent = notes.join(' ');
    els.plansNote.hidden = !notes.length;
  }

  // Asks EstimatePerformance for each plan's uncertainty and MFU peak when
  // the Recommend answer does not carry them; redraws the table as they come.
  async function fetchUncertainty(req, seq) {
    const list = state.plans.concat(state.startingPoint ? [state.startingPoint] : []);
    await Promise.all(list.map(async (plan) => {
      if (plan.uncertainty !== undefined && plan.peak_tflops !== undefined) return;
      const placement = Object.assign({}, req.placement);
      if (num(plan.gpus) > 0) placement.gpus = num(plan.gpus);
      try {
        const perf = await post('/v1/EstimatePerformance', { model: req.model, placement, config: plan.config || {} });
        plan._perf = perf;
      } catch (e) {
        plan._perf = { uncertainty_basis: 'not available: ' + e.message };
      }
    }));
    if (seq === state.planSeq) renderPlans();
  }

  // Shows a Recommend answer: the infeasible reason, the plans and the reasons.
  function showAnswer(answer) {
    state.answer = answer;
    state.plans = Array.isArray(answer.plans) ? answer.plans : [];
    const sp = answer.starting_point;
    state.startingPoint = sp && sp.label && num(sp.tokens_per_s_per_gpu) > 0 ? sp : null;
    state.selected = -2;
    els.results.hidden = false;
    const infeasible = answer.feasible === false || !!answer.infeasible_reason;
    els.infeasible.hidden = !infeasible;
    els.infeasible.textContent = '';
    if (infeasible) {
      els.infeasible.appendChild(el('strong', '', 'No feasible plan. '));
      els.infeasible.appendChild(document.createTextNode(answer.infeasible_reason || 'No configuration fits.'));
    }
    renderPlans();
    const meta = [];
    if (answer.model && answer.model.name) meta.push(answer.model.name);
    if (answer.seq_length) meta.push('seq ' + answer.seq_length);
    if (!infeasible && num(answer.gbs) > 0) meta.push('GBS ' + num(answer.gbs).toLocaleString('en-US'));
    // int64 fields arrive as strings: "0" is truthy.
    if (num(answer.evaluated) > 0) meta.push(num(answer.evaluated).toLocaleString('en-US') + ' configs evaluated');
    else if (num(answer.candidates) > 0) meta.push(num(answer.candidates).toLocaleString('en-US') + ' configs considered');
    if (answer.truncated) meta.push('search cut short' + (answer.truncated_reason ? ': ' + answer.truncated_reason : ''));
    els.plansMeta.textContent = meta.join(' · ');
    fillList(els.answerReasons, answer.reasons);
    els.answerReasonsBox.hidden = !(answer.reasons && answer.reasons.length);
  }

  // Runs the form: Recommend or Check.
  async function run() {
    clearError();
    const form = readForm();
    if (showFieldErrors(form.errors)) return;
    state.request = form.request;
    updateUrl();
    if (state.mode === 'check') await runCheck(form);
    else await runPlan(form);
  }

  // Recommend, then draws plan 1.
  async function runPlan(form) {
    const req = {
      model: form.request.model,
      placement: form.request.placement,
      objective: els.objective.value || 'throughput',
      top_k: 5,
    };
    if (form.gpus === undefined) req.find_min_gpus = true;
    const config = {};
    if (form.request.config.seq_length) config.seq_length = form.request.config.seq_length;
    if (form.request.config.precision) config.precision = form.request.config.precision;
    if (Object.keys(config).length) req.config = config;
    const seq = ++state.planSeq;
    state.plotSeq++;  // drop any drawing still on its way
    state.request = req;
    setState('loading', 'Searching plans…');
    els.detail.hidden = true;
    els.checkResults.hidden = true;
    let answer;
    try {
      answer = await post('/v1/Recommend', req);
    } catch (e) {
      if (seq === state.planSeq) showError(e, 'Recommend');
      return;
    }
    if (seq !== state.planSeq) return;
    showAnswer(answer);
    const uncertainty = fetchUncertainty(req, seq);
    if (state.plans.length) {
      const first = state.firstPlan < state.plans.length ? state.firstPlan : 0;
      state.firstPlan = 0;  // later runs start at plan 1
      await Promise.all([selectPlan(first), uncertainty]);
    } else {
      await uncertainty;
      setState('done', answer.feasible === false ? 'No feasible plan.' : 'No plans returned.');
    }
  }

  // ---------------------------------------------------------------- check

  // Validate, EstimateMemory and EstimatePerformance for the form, then the pictures.
  async function runCheck(form) {
    const seq = ++state.planSeq;
    state.plotSeq++;
    const req = form.request;
    setState('loading', 'Checking the config…');
    els.detail.hidden = true;
    const settle = (promise) => promise.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
    const [validate, memory, perf] = await Promise.all([
      settle(post('/v1/Validate', req)), settle(post('/v1/EstimateMemory', req)), settle(post('/v1/EstimatePerformance', req))]);
    if (seq !== state.planSeq) return;
    if (!validate.ok && !memory.ok && !perf.ok) {
      showError(validate.error, 'Check');
      els.checkResults.hidden = true;
      return;
    }
    els.results.hidden = true;
    const drawable = window.ParplanCheck.show(validate, memory, perf, { urlParams, configUrl, inputOf, gpus: els.gpus });
    const p = perf.ok ? perf.value : null;
    const checked = {
      label: 'your config',
      config: req.config,
      gpus: req.placement.gpus || (p && p.dp && p.resolved_config ? p.dp * (p.resolved_config.tp || 1) * (p.resolved_config.cp || 1) * (p.resolved_config.pp || 1) : undefined),
      reasons: p ? p.reasons : [],
    };
    state.plans = [checked];
    state.startingPoint = null;
    if (!drawable) {
      setState('done', 'The config breaks ' + (validate.ok ? validate.value.errors : 'some') + ' rule(s); see the fixes.');
      return;
    }
    await selectPlan(0);
  }
  // ---------------------------------------------------------------- one plan

  // Marks row `i` selected in the table.
  function markRow(i) {
    for (const tr of els.plansBody.querySelectorAll('tr')) {
      tr.setAttribute('aria-selected', tr.dataset.index === String(i) ? 'true' : 'false');
    }
  }

  // Inserts an SVG document string from our server into `box`.
  function putSvg(box, svgText) {
    box.textContent = '';
    if (!svgText) {
      box.appendChild(el('p', 'muted', 'no picture'));
      return;
    }
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const svg = doc.documentElement;
    if (!svg || svg.nodeName.toLowerCase() !== 'svg' || doc.getElementsByTagName('parsererror').length) {
      box.innerHTML = svgText;  // let the HTML parser try
      return;
    }
    box.appendChild(document.importNode(svg, true));
  }

  function showBridge(format) {
    state.bridgeFormat = format;
    els.pythonTab.setAttribute('aria-pressed', String(format === 'python'));
    els.cliTab.setAttribute('aria-pressed', String(format === 'cli'));
    els.bridge.textContent = state.bridge[format] || state.bridge.python || '';
  }

  // Which plan the detail shows: "Plan 2", "Rule of thumb" or "Your config".
  function planName(plan, i) {
    if (state.mode === 'check') return 'Your config';
    return i < 0 ? 'Rule of thumb' : 'Plan ' + (plan.rank || i + 1);
  }

  // Selects plan `i` (-1: the rule-of-thumb starting point) and draws it
  // (POST /plot, with the rank map's groups); resolves when drawn or failed.
  async function selectPlan(i) {
    const plan = planAt(i);
    if (!plan || !state.request) return;
    state.selected = i;
    markRow(i);
    clearError();
    const seq = ++state.plotSeq;
    setState('loading', 'Drawing ' + planName(plan, i).toLowerCase() + '…');
    const placement = Object.assign({}, state.request.placement);
    if (num(plan.gpus) > 0) placement.gpus = num(plan.gpus);
    const groups = els.groups.value ? '?groups=' + encodeURIComponent(els.groups.value) : '';
    let plot;
    try {
      plot = await post('/plot' + groups, { model: state.request.model, placement: placement, config: plan.config || {} });
    } catch (e) {
      if (seq === state.plotSeq) showError(e, 'Plot');
      return;
    }
    if (seq !== state.plotSeq) return;
    els.planTitle.textContent = planName(plan, i) + ': ' + (plot.title || plan.label || '');
    fillList(els.planReasons, (plot.reasons && plot.reasons.length) ? plot.reasons : plan.reasons);
    putSvg(els.rankMap, plot.rank_map_svg);
    // A wide rank map (a summarised or a large world) gets the full width.
    const mapSvg = els.rankMap.querySelector('svg');
    els.rankMapCard.classList.toggle('figure-wide', !!mapSvg && Number(mapSvg.getAttribute('width')) > 640);
    putSvg(els.memoryChart, plot.memory_svg);
    putSvg(els.stepTime, plot.step_time_svg);
    state.bridge = { python: plot.bridge_python || plan.bridge_overrides || '', cli: plot.bridge_cli || '' };
    els.cliTab.hidden = !state.bridge.cli;
    showBridge(state.bridge[state.bridgeFormat] ? state.bridgeFormat : 'python');
    els.detail.hidden = false;
    if (state.mode === 'check') {
      setState('done', 'Checked; showing your config.');
    } else {
      setState('done', state.plans.length + ' plan' + (state.plans.length === 1 ? '' : 's') + '; showing ' + planName(plan, i).toLowerCase() + '.');
    }
  }

  // ---------------------------------------------------------------- copy

  // Copies `text`: the Clipboard API where allowed, else a hidden textarea.
  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch (e) {
        // fall through to the textarea
      }
    }
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.top = '-1000px';
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (e) {
      ok = false;
    }
    document.body.removeChild(ta);
    return ok;
  }

  async function onCopy() {
    const ok = await copyText(els.bridge.textContent);
    els.copy.textContent = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => { els.copy.textContent = 'Copy'; }, 1500);
  }

  // ---------------------------------------------------------------- start

  let catalogLoaded = false;

  async function start() {
    els.form.addEventListener('submit', (e) => {
      e.preventDefault();
      // A server with a token refuses the first catalog load: load it once
      // the token has been typed.
      if (catalogLoaded) run();
      else loadCatalog();
    });
    els.pythonTab.addEventListener('click', () => showBridge('python'));
    els.cliTab.addEventListener('click', () => showBridge('cli'));
    els.copy.addEventListener('click', onCopy);
    els.modeRecommend.addEventListener('click', () => setMode('recommend'));
    els.modeCheck.addEventListener('click', () => setMode('check'));
    els.system.addEventListener('change', systemPlaceholders);
    els.model.addEventListener('change', () => {
      if (els.model.value === CUSTOM) els.customModel.open = true;
    });
    els.groups.addEventListener('change', () => {
      updateUrl();
      if (state.selected >= -1 && planAt(state.selected)) selectPlan(state.selected);
    });
    buildFields();
    $('s-gpu-arch').addEventListener('change', systemPlaceholders);
    setMode('recommend');
    await loadCatalog();
  }

  // Fills the model and system lists, then runs the plan the URL asks for.
  async function loadCatalog() {
    setState('loading', 'Loading models and systems…');
    let models;
    let systems;
    try {
      [models, systems] = await Promise.all([post('/v1/ListModels', {}), post('/v1/ListSystems', {})]);
    } catch (e) {
      showError(e, 'Loading models and systems');
      return;
    }
    clearError();
    fillModels(models.models || []);
    fillSystems(systems.systems || []);
    catalogLoaded = true;
    const url = applyUrl();
    systemPlaceholders();
    if (showFieldErrors(url.errors)) return;
    if (url.run) {
      await run();
    } else {
      setState('done', state.mode === 'check' ? 'Enter a config, then Check.' : 'Pick a model, a system and a GPU count, then Plan.');
    }
  }

  start();
})();
