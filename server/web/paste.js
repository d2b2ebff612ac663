// parplan's web page, "Start from what you run", the config half: the pasted
// (or dropped, or chosen) launch script, arguments block, MODEL_ARGS YAML,
// recipe with overrides, Bridge YAML or config.json goes to /v1/ImportConfig
// with the format and the page's System / GPUs fields as the placement. The
// answer is drawn here: the format read, the recipe, the argument counts,
// valid or not with its rule cards (rules.js), the warnings, the resolved
// plan (resolved.js) and every argument in a table filtered by status, the
// not-modelled ones marked. From it, "Estimate speed and memory" asks
// /v1/EstimatePerformance for the imported model, config and placement, and
// "Recommend from here" asks /v1/Recommend with the imported config as
// `current` (app.js draws the plans with what each changes). An API error is
// shown beside the box its field belongs to (run_facts.js fieldTarget).
//
// window.ParplanPaste = {
//   init()                         -> wires the panel (once, at start)
//   imported()                     -> the last ImportConfig answer, or null
//   placement()                    -> {ok, placement}: the page's System / GPUs fields as a Placement;
//                                     ok false (and the fields marked) when one is bad
//   readFile(input, textarea, max, target) -> reads the chosen file into the box (at most max
//                                     bytes; a file too large is an error beside box `target`)
//   dropTarget(textarea, max, target) -> a file dropped on the box is read into it the same way
//   submitOnCtrlEnter(textarea, form) -> Ctrl+Enter (Cmd+Enter) in the box submits the form
//   showError(err, what, fallback) -> the API error beside its box(es); fallback: the box for
//                                     violations of no box ("config" | "log" | "baseline")
//   clearErrors()
// }
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const R = window.ParplanRunFacts;
  const { el, fillList } = window.ParplanFormat;
  const { post } = window.ParplanApi;
  const { setState, clearError } = window.ParplanStatus;
  const MAX_CONFIG_BYTES = 1048576;  // ImportConfigRequest.text: at most 1 MiB

  // The error box and the input of each target.
  const BOXES = {
    config: { error: 'import-error', input: 'import-text' },
    log: { error: 'log-error', input: 'log-text' },
    baseline: { error: 'baseline-error', input: 'baseline-text' },
  };

  let answer = null;   // the last ImportConfig answer
  let seq = 0;         // drops stale answers

  // The page's placement inputs a placement.* violation marks.
  const PLACEMENT_INPUTS = { system: 'system', system_spec: 'system', gpus: 'gpus', gpus_per_node: 'gpus',
    gpus_per_nvlink_domain: 'gpus-per-domain' };

  function clearErrors() {
    for (const id of new Set(Object.values(PLACEMENT_INPUTS))) $(id).classList.remove('invalid');
    for (const b of Object.values(BOXES)) {
      $(b.error).hidden = true;
      $(b.error).textContent = '';
      $(b.input).classList.remove('invalid');
      $(b.input).removeAttribute('aria-invalid');
    }
  }

  function showError(err, what, fallback) {
    clearErrors();
    const byBox = {};
    const add = (target, v) => (byBox[target] = byBox[target] || []).push(v);
    for (const v of err.violations || []) {
      const t = R.fieldTarget(v.field);
      if (t === 'placement') {
        const input = PLACEMENT_INPUTS[String(v.field).split(/[.[]/)[1]];
        if (input) $(input).classList.add('invalid');
      }
      add(BOXES[t] ? t : fallback, v);
    }
    if (!Object.keys(byBox).length) byBox[fallback] = [];
    for (const [target, list] of Object.entries(byBox)) {
      const box = $(BOXES[target].error);
      box.appendChild(el('div', 'error-title', (what ? what + ' failed: ' : '') + (err.code ? err.code + ': ' : '') + (err.message || '')));
      if (list.length) {
        const ul = el('ul');
        for (const v of list) {
          const li = el('li');
          li.appendChild(el('code', '', v.field || '(request)'));
          li.appendChild(document.createTextNode(' ' + (v.description || '')));
          ul.appendChild(li);
        }
        box.appendChild(ul);
      }
      box.hidden = false;
      $(BOXES[target].input).classList.add('invalid');
      $(BOXES[target].input).setAttribute('aria-invalid', 'true');
      if (target === 'baseline') $('baseline-box').open = true;
    }
    setState('error', (what || 'Request') + ' failed.');
  }

  // The page's placement fields; the form's own check marks a bad one.
  function placement() {
    const form = window.ParplanForm.readForm();
    const keys = Object.keys(form.errors).filter((k) => k === 'gpus' || k === 'gpus-per-domain' || k === 'gpu-arch' ||
      window.ParplanForm.SYSTEM_KEYS[k]);
    if (keys.length) {
      const errors = {};
      for (const k of keys) errors[k] = form.errors[k];
      window.ParplanForm.showFieldErrors(errors);
      return { ok: false, placement: null };
    }
    return { ok: true, placement: form.request.placement };
  }

  // Reads `file` into `textarea` when it is at most `max` bytes.
  function readInto(file, textarea, max, target) {
    if (!file) return;
    if (file.size > max) {
      const err = new Error(file.name + ' is ' + file.size.toLocaleString('en-US') + ' bytes; at most ' +
        max.toLocaleString('en-US') + ' are read');
      err.code = 'TOO_LARGE';
      showError(err, 'Reading the file', target);
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      textarea.value = String(reader.result || '');
      clearErrors();
      setState('done', 'Read ' + file.name + ' (' + file.size.toLocaleString('en-US') + ' bytes).');
    };
    reader.onerror = () => {
      const err = new Error('cannot read ' + file.name + (reader.error ? ': ' + reader.error.message : ''));
      err.code = 'READ_FAILED';
      showError(err, 'Reading the file', target);
    };
    reader.readAsText(file);
  }

  function readFile(input, textarea, max, target) {
    readInto(input.files && input.files[0], textarea, max, target);
    input.value = '';  // the same file can be chosen again
  }

  // A file dropped on the box is read into it.
  function dropTarget(textarea, max, target) {
    textarea.addEventListener('dragover', (e) => {
      if (e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files')) {
        e.preventDefault();
        textarea.classList.add('drop-over');
      }
    });
    textarea.addEventListener('dragleave', () => textarea.classList.remove('drop-over'));
    textarea.addEventListener('drop', (e) => {
      textarea.classList.remove('drop-over');
      const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (!file) return;
      e.preventDefault();
      readInto(file, textarea, max, target);
    });
  }

  function stat(label, value, sub, cls) {
    const box = el('div', 'stat' + (cls ? ' ' + cls : ''));
    box.appendChild(el('div', 'stat-label', label));
    const v = el('div', 'stat-value');
    if (value instanceof Node) v.appendChild(value);
    else v.textContent = value;
    box.appendChild(v);
    if (sub) box.appendChild(el('div', 'stat-sub muted', sub));
    return box;
  }

  const badge = (cls, text) => el('span', 'badge ' + cls, text);

  function drawArguments() {
    const list = (answer && answer.arguments) || [];
    const shown = R.filterArguments(list, $('args-filter').value);
    const body = document.querySelector('#import-args tbody');
    body.textContent = '';
    for (const a of shown) {
      const tr = document.createElement('tr');
      tr.className = 'arg-' + (a.status || 'unknown');
      tr.appendChild(el('td', 'arg-name', a.name || ''));
      tr.appendChild(el('td', 'arg-value', a.value || ''));
      const status = el('td');
      const cls = a.status === 'mapped' ? 'badge-ok' : a.status === 'not_modelled' ? 'badge-warn' : 'badge-info';
      status.appendChild(badge(cls, R.statusLabel(a.status)));
      tr.appendChild(status);
      tr.appendChild(el('td', 'arg-maps', a.maps_to || ''));
      tr.appendChild(el('td', 'arg-note', (a.note || '') + (a.origin ? (a.note ? ' · ' : '') + a.origin : '')));
      tr.appendChild(el('td', 'num muted', R.value(a.line) > 0 ? String(R.value(a.line)) : R.MISSING));
      body.appendChild(tr);
    }
    if (!shown.length) {
      const tr = document.createElement('tr');
      const td = el('td', 'muted empty', list.length ? 'No argument with this status.' : 'No arguments read.');
      td.colSpan = 6;
      tr.appendChild(td);
      body.appendChild(tr);
    }
    $('args-count').textContent = shown.length + ' of ' + list.length;
  }

  function draw(a) {
    answer = a;
    $('import-result').hidden = false;
    $('estimate-result').hidden = true;
    const valid = a.valid === true;
    const model = (a.model_summary && a.model_summary.name) || (a.model && a.model.id) || '';
    $('import-title').textContent = 'Imported ' + (a.format || 'config') + (model ? ': ' + model : '');
    const meta = [];
    if (a.recipe) meta.push('recipe ' + a.recipe);
    const label = R.configLabel(a.resolved_config);
    if (label) meta.push(label);
    if (a.assumes) meta.push('assumes ' + a.assumes);
    $('import-meta').textContent = meta.join(' · ');
    const counts = R.argumentCounts(a);
    const box = $('import-summary');
    box.textContent = '';
    const errors = (a.violations || []).filter((v) => v && v.severity === 'error').length;
    // Invalid without a broken rule: the plan could not be resolved (the reasons say why).
    const unresolved = (a.reasons || []).find((r) => /^Not resolved/.test(r)) || '';
    box.appendChild(stat('Plan', badge(valid ? 'badge-ok' : 'badge-bad', valid ? 'VALID' : 'INVALID'),
      valid ? 'no Megatron rule broken' : errors ? errors + ' rule' + (errors === 1 ? '' : 's') + ' broken: see the cards'
        : unresolved || 'not checked: see the notes and reasons'));
    box.appendChild(stat('Format read', a.format || R.MISSING, a.recipe ? 'recipe ' + a.recipe : ''));
    const p = a.placement || {};
    box.appendChild(stat('Placement', (p.system || R.MISSING) + (R.value(p.gpus) > 0 ? ' · ' + R.value(p.gpus) + ' GPUs' : ''),
      R.value(p.gpus_per_nvlink_domain) > 0 ? p.gpus_per_nvlink_domain + ' GPUs per NVLink domain' : ''));
    const c = el('span', 'arg-counts');
    c.appendChild(badge('badge-ok', counts.mapped + ' mapped'));
    c.appendChild(document.createTextNode(' '));
    c.appendChild(badge(counts.not_modelled ? 'badge-warn' : 'badge-info', counts.not_modelled + ' not modelled'));
    c.appendChild(document.createTextNode(' '));
    c.appendChild(badge('badge-info', counts.no_effect + ' no effect'));
    box.appendChild(stat('Arguments', c, counts.total + ' read'));
    window.ParplanRules.render($('import-violations'), a.violations || [], '');
    fillList($('import-warnings'), a.warnings || []);
    $('import-warnings-box').hidden = !(a.warnings && a.warnings.length);
    window.ParplanResolved.render($('import-resolved'), a);
    $('import-args-summary').textContent = 'Arguments (' + counts.total + ')';
    drawArguments();
    const reasons = (a.notes || []).concat(a.reasons || []);
    fillList($('import-reasons'), reasons);
    $('import-reasons-box').hidden = !reasons.length;
  }

  async function runImport() {
    clearError();
    clearErrors();
    const text = $('import-text').value;
    if (!text.trim()) {
      showError({ code: 'INVALID_INPUT', message: 'paste a config or choose a file (nothing was sent)',
        violations: [{ field: 'text', description: 'empty' }] }, 'Import', 'config');
      return;
    }
    const where = placement();
    if (!where.ok) return;
    const mine = ++seq;
    setState('loading', 'Importing the config…');
    $('import-button').disabled = true;
    let a;
    try {
      a = await post('/v1/ImportConfig', R.importRequest(text, $('import-format').value, where.placement));
    } catch (e) {
      if (mine === seq) showError(e, 'Import', 'config');
      return;
    } finally {
      if (mine === seq) $('import-button').disabled = false;
    }
    if (mine !== seq) return;
    draw(a);
    setState('done', 'Imported ' + (a.format || 'the config') + ': ' + (a.valid ? 'valid' : 'invalid') + ' plan, ' +
      R.argumentCounts(a).not_modelled + ' argument(s) not modelled.');
  }

  // EstimatePerformance of the imported plan, drawn under the buttons.
  async function runEstimate() {
    if (!answer) return;
    clearError();
    clearErrors();
    const where = placement();
    if (!where.ok) return;
    const mine = ++seq;
    setState('loading', 'Estimating the imported plan…');
    $('estimate-button').disabled = true;
    let p;
    try {
      p = await post('/v1/EstimatePerformance', R.estimateRequest(answer, where.placement));
    } catch (e) {
      if (mine === seq) showError(e, 'Estimate', 'config');
      return;
    } finally {
      if (mine === seq) $('estimate-button').disabled = false;
    }
    if (mine !== seq) return;
    const box = $('estimate-result');
    box.textContent = '';
    box.hidden = false;
    box.appendChild(el('h4', '', 'Estimate of the imported plan'));
    const broken = !p.nearest_valid_split && (p.violations || []).some((v) => v && v.severity === 'error');
    if (broken) {
      box.appendChild(el('p', 'rule-note', 'Not estimated: the plan breaks the rules below.'));
      const rules = el('div', 'rules-box');
      window.ParplanRules.render(rules, p.violations, '');
      box.appendChild(rules);
      setState('done', 'The imported plan breaks a rule; nothing estimated.');
      return;
    }
    const grid = el('div', 'check-summary');
    const u = R.value(p.uncertainty), p90 = R.value(p.uncertainty_p90);
    grid.appendChild(stat('Step time', R.seconds(p.step_time_s), R.value(p.microbatches) > 0 ? R.value(p.microbatches) +
      ' microbatches · GBS ' + R.fixed(p.gbs, 0) + ' · DP=' + (R.value(p.dp) || 1) : ''));
    grid.appendChild(stat('Tokens/s per GPU', R.fixed(p.tokens_per_s_per_gpu, 0) + (u > 0 ? ' ±' + R.percent(u, 0) : ''),
      u > 0 ? 'typical error ±' + R.percent(u) + (p90 > 0 ? ', p90 ±' + R.percent(p90) : '') : 'uncertainty not given'));
    grid.appendChild(stat('MFU', R.percent(p.mfu), R.value(p.peak_tflops) > 0 ? 'of ' + R.fixed(p.peak_tflops, 0) + ' TFLOP/s dense peak' : ''));
    const mem = el('span');
    mem.appendChild(document.createTextNode(R.gib(p.memory_peak_bytes) + ' of ' + R.gib(p.memory_capacity_bytes) + ' '));
    mem.appendChild(p.fits ? badge('badge-ok', 'fits') : badge('badge-bad', 'does not fit'));
    grid.appendChild(stat('Peak memory per GPU', mem, ''));
    box.appendChild(grid);
    if (p.nearest_valid_split) box.appendChild(el('p', 'rule-note', 'Estimated ' + window.ParplanFacts.splitNote(p.nearest_valid_split) + '.'));
    const notes = [];
    if (p.uncertainty_basis) notes.push('Uncertainty: ' + p.uncertainty_basis);
    if (p.calibration) notes.push('Calibration: ' + p.calibration);
    for (const n of notes) box.appendChild(el('p', 'muted small', n));
    setState('done', 'Estimated the imported plan: ' + R.seconds(p.step_time_s) + ' per step.');
  }

  async function runRecommend() {
    if (!answer) return;
    clearError();
    clearErrors();
    const where = placement();
    if (!where.ok) return;
    $('recommend-here-button').disabled = true;
    try {
      const err = await window.ParplanApp.recommend(R.recommendRequest(answer, where.placement, $('objective').value));
      if (err) showError(err, 'Recommend', 'config');
      else $('results').scrollIntoView({ block: 'start' });
    } finally {
      $('recommend-here-button').disabled = false;
    }
  }

  // Ctrl+Enter (Cmd+Enter) in a box submits its form, as Enter does in an input.
  function submitOnCtrlEnter(textarea, form) {
    textarea.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit', { cancelable: true }));
      }
    });
  }

  function init() {
    $('import-form').addEventListener('submit', (e) => {
      e.preventDefault();
      runImport();
    });
    submitOnCtrlEnter($('import-text'), $('import-form'));
    $('import-file').addEventListener('change', () => readFile($('import-file'), $('import-text'), MAX_CONFIG_BYTES, 'config'));
    dropTarget($('import-text'), MAX_CONFIG_BYTES, 'config');
    $('args-filter').addEventListener('change', drawArguments);
    $('estimate-button').addEventListener('click', runEstimate);
    $('recommend-here-button').addEventListener('click', runRecommend);
  }

  window.ParplanPaste = { init, imported: () => answer, placement, readFile, dropTarget, submitOnCtrlEnter, showError, clearErrors };
})();
