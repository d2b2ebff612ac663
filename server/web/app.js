// parplan's web page: fills the form from ListModels / ListSystems, asks
// /v1/Recommend for plans, and draws the selected plan from /plot (SVGs made
// by our own server, inserted inline). Plain ES2017, no dependencies.
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
  };

  // What the page currently shows.
  const state = {
    request: null,   // the last Recommend request sent
    plans: [],       // its plans
    selected: -1,    // index into plans
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

  const num = (v) => (v === undefined || v === null || v === '' ? NaN : Number(v));

  function fmt(v, digits) {
    const n = num(v);
    return Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
  }

  function gib(bytes) {
    const n = num(bytes);
    return Number.isFinite(n) ? (n / GiB).toFixed(1) : '–';
  }

  function seconds(s) {
    const n = num(s);
    if (!Number.isFinite(n)) return '–';
    return n < 10 ? n.toFixed(2) + ' s' : n.toFixed(1) + ' s';
  }

  // A DOM element with a class and text.
  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fillList(ul, items) {
    ul.textContent = '';
    for (const item of items || []) ul.appendChild(el('li', '', item));
  }

  // ---------------------------------------------------------------- form

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
    const first = models.find((m) => m.complete && m.id === 'llama3_70b') || models.find((m) => m.complete);
    if (first) els.model.value = first.id;
  }

  // Fills the system select: "id (name, N GPUs/node, HBM)".
  function fillSystems(systems) {
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
    if (systems.some((s) => s.id === 'h100-sxm')) els.system.value = 'h100-sxm';
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

  // Fills the form from the URL (?model=&system=&gpus=&seq=&precision=&objective=
  // &plan=N); true when run=1.
  function applyUrl() {
    const p = new URLSearchParams(window.location.search);
    selectValue(els.model, p.get('model'));
    selectValue(els.system, p.get('system'));
    if (p.has('gpus')) els.gpus.value = p.get('gpus');
    const seq = p.get('seq') || p.get('seq_length');
    if (seq) els.seq.value = seq;
    if (p.get('precision')) selectValue(els.precision, p.get('precision'));
    if (p.get('objective')) selectValue(els.objective, p.get('objective'));
    const plan = parseInt(p.get('plan') || '1', 10);
    state.firstPlan = plan > 0 ? plan - 1 : 0;
    return p.get('run') === '1' || p.get('run') === 'true';
  }

  // The Recommend request for the form, leaving out what is left at default.
  function buildRequest() {
    const req = {
      model: { id: els.model.value },
      placement: { system: els.system.value },
      objective: els.objective.value || 'throughput',
      top_k: 5,
    };
    const gpus = parseInt(els.gpus.value, 10);
    if (gpus > 0) {
      req.placement.gpus = gpus;
    } else {
      req.find_min_gpus = true;
    }
    const config = {};
    const seq = parseInt(els.seq.value, 10);
    if (seq > 0) config.seq_length = seq;
    if (els.precision.value) config.precision = els.precision.value;
    if (Object.keys(config).length) req.config = config;
    return req;
  }

  // Mirrors the form in the address bar, so the page can be shared or reloaded.
  function updateUrl() {
    const p = new URLSearchParams();
    p.set('model', els.model.value);
    p.set('system', els.system.value);
    if (els.gpus.value) p.set('gpus', els.gpus.value);
    if (els.seq.value) p.set('seq', els.seq.value);
    if (els.precision.value) p.set('precision', els.precision.value);
    if (els.objective.value !== 'throughput') p.set('objective', els.objective.value);
    p.set('run', '1');
    try {
      window.history.replaceState(null, '', '?' + p.toString());
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

  // One table row for plan `i`.
  function planRow(plan, i) {
    const tr = document.createElement('tr');
    tr.tabIndex = 0;
    tr.dataset.index = String(i);
    tr.setAttribute('aria-selected', 'false');
    tr.appendChild(el('td', 'num rank', String(plan.rank || i + 1)));
    const label = el('td', 'label');
    label.appendChild(el('span', 'plan-label', plan.label || ''));
    if (plan.gpus) label.appendChild(el('span', 'muted plan-gpus', ' · ' + plan.gpus + ' GPUs, DP=' + (plan.dp || '?')));
    tr.appendChild(label);
    tr.appendChild(el('td', 'num', fmt(plan.tokens_per_s_per_gpu, 0)));
    tr.appendChild(el('td', 'num', Number.isFinite(num(plan.mfu)) ? (num(plan.mfu) * 100).toFixed(1) + '%' : '–'));
    const mem = el('td', 'num');
    mem.appendChild(el('span', '', gib(plan.memory_peak_bytes)));
    mem.appendChild(el('span', 'muted', ' / ' + gib(plan.memory_capacity_bytes) + ' GiB'));
    const cap = num(plan.memory_capacity_bytes);
    const peak = num(plan.memory_peak_bytes);
    if (cap > 0 && peak >= 0) {
      const bar = el('span', 'membar');
      const fill = el('span', 'membar-fill' + (peak > cap ? ' over' : plan.tight ? ' tight' : ''));
      fill.style.width = Math.min(100, (peak / cap) * 100).toFixed(1) + '%';
      bar.appendChild(fill);
      mem.appendChild(bar);
    }
    tr.appendChild(mem);
    const badge = el('td');
    badge.appendChild(memoryBadge(plan));
    tr.appendChild(badge);
    tr.appendChild(el('td', 'num', seconds(plan.step_time_s)));
    tr.addEventListener('click', () => selectPlan(i));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        selectPlan(i);
      }
    });
    return tr;
  }

  // Shows a Recommend answer: the infeasible reason, the plans and the reasons.
  function showAnswer(answer) {
    state.plans = Array.isArray(answer.plans) ? answer.plans : [];
    state.selected = -1;
    els.results.hidden = false;
    els.infeasible.hidden = answer.feasible !== false && !answer.infeasible_reason;
    els.infeasible.textContent = '';
    if (!els.infeasible.hidden) {
      els.infeasible.appendChild(el('strong', '', 'No feasible plan. '));
      els.infeasible.appendChild(document.createTextNode(answer.infeasible_reason || 'No configuration fits.'));
    }
    els.plansBody.textContent = '';
    state.plans.forEach((plan, i) => els.plansBody.appendChild(planRow(plan, i)));
    if (!state.plans.length) {
      const tr = document.createElement('tr');
      const td = el('td', 'muted empty', 'No plans.');
      td.colSpan = 7;
      tr.appendChild(td);
      els.plansBody.appendChild(tr);
    }
    const meta = [];
    if (answer.model && answer.model.name) meta.push(answer.model.name);
    if (answer.seq_length) meta.push('seq ' + answer.seq_length);
    if (answer.gbs) meta.push('GBS ' + answer.gbs);
    if (answer.evaluated) meta.push(Number(answer.evaluated).toLocaleString('en-US') + ' configs evaluated');
    if (answer.truncated) meta.push('search cut short' + (answer.truncated_reason ? ': ' + answer.truncated_reason : ''));
    els.plansMeta.textContent = meta.join(' · ');
    fillList(els.answerReasons, answer.reasons);
    els.answerReasonsBox.hidden = !(answer.reasons && answer.reasons.length);
  }

  // Runs the form's plan: Recommend, then draws plan 1.
  async function runPlan() {
    clearError();
    const req = buildRequest();
    if (!req.model.id || !req.placement.system) {
      showError(new Error('pick a model and a system'), 'Plan');
      return;
    }
    const seq = ++state.planSeq;
    state.plotSeq++;  // drop any drawing still on its way
    state.request = req;
    updateUrl();
    setState('loading', 'Searching plans…');
    els.detail.hidden = true;
    let answer;
    try {
      answer = await post('/v1/Recommend', req);
    } catch (e) {
      if (seq === state.planSeq) showError(e, 'Recommend');
      return;
    }
    if (seq !== state.planSeq) return;
    showAnswer(answer);
    if (state.plans.length) {
      const first = state.firstPlan < state.plans.length ? state.firstPlan : 0;
      state.firstPlan = 0;  // later runs start at plan 1
      await selectPlan(first);
    } else {
      setState('done', answer.feasible === false ? 'No feasible plan.' : 'No plans returned.');
    }
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

  // Selects plan `i` and draws it (POST /plot); resolves when drawn or failed.
  async function selectPlan(i) {
    const plan = state.plans[i];
    if (!plan || !state.request) return;
    state.selected = i;
    markRow(i);
    clearError();
    const seq = ++state.plotSeq;
    setState('loading', 'Drawing plan ' + (plan.rank || i + 1) + '…');
    const placement = Object.assign({}, state.request.placement);
    if (num(plan.gpus) > 0) placement.gpus = num(plan.gpus);
    let plot;
    try {
      plot = await post('/plot', { model: state.request.model, placement: placement, config: plan.config || {} });
    } catch (e) {
      if (seq === state.plotSeq) showError(e, 'Plot');
      return;
    }
    if (seq !== state.plotSeq) return;
    els.planTitle.textContent = 'Plan ' + (plan.rank || i + 1) + ': ' + (plot.title || plan.label || '');
    fillList(els.planReasons, (plot.reasons && plot.reasons.length) ? plot.reasons : plan.reasons);
    putSvg(els.rankMap, plot.rank_map_svg);
    putSvg(els.memoryChart, plot.memory_svg);
    putSvg(els.stepTime, plot.step_time_svg);
    state.bridge = { python: plot.bridge_python || plan.bridge_overrides || '', cli: plot.bridge_cli || '' };
    els.cliTab.hidden = !state.bridge.cli;
    showBridge(state.bridge[state.bridgeFormat] ? state.bridgeFormat : 'python');
    els.detail.hidden = false;
    setState('done', state.plans.length + ' plan' + (state.plans.length === 1 ? '' : 's') + '; showing plan ' + (plan.rank || i + 1) + '.');
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
      if (catalogLoaded) runPlan();
      else loadCatalog();
    });
    els.pythonTab.addEventListener('click', () => showBridge('python'));
    els.cliTab.addEventListener('click', () => showBridge('cli'));
    els.copy.addEventListener('click', onCopy);
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
    const run = applyUrl();
    if (run) {
      await runPlan();
    } else {
      setState('done', 'Pick a model, a system and a GPU count, then Plan.');
    }
  }

  start();
})();
