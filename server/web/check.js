// parplan's web page, the answer of "check a config": the Validate,
// EstimateMemory and EstimatePerformance answers as a summary (valid or not,
// peak memory against HBM, tokens/s with its uncertainty, step time, MFU with
// its peak), the rule cards (rules.js; the inputs an error names marked),
// the resolved plan (resolved.js), the memory suggestions (each a link that
// checks the changed config), a link to Recommend for an invalid config, and
// the reasons. An answer for a config that breaks a rule estimates nothing,
// so its zeros are not shown; when Megatron rejects only the layer split, the
// estimates are for the nearest valid split and every card made from them
// says so.
//
// window.ParplanCheck.show(validate, memory, perf) -> {drawable, repair}
//   each argument {ok, value | error}; drawable: the config (or its nearest
//   valid split, `repair`, a SplitRepair) can be drawn
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const F = window.ParplanFields;
  const Facts = window.ParplanFacts;
  const { num, fmt, gib, seconds, el, fillList, pct } = window.ParplanFormat;

  // One labelled figure of the check summary; `note` (e.g. the nearest valid
  // split it was computed for) goes under it.
  function stat(label, value, sub, cls, note) {
    const box = el('div', 'stat' + (cls ? ' ' + cls : ''));
    box.appendChild(el('div', 'stat-label', label));
    const v = el('div', 'stat-value');
    if (value instanceof Node) v.appendChild(value);
    else v.textContent = value;
    box.appendChild(v);
    if (sub) box.appendChild(el('div', 'stat-sub muted', sub));
    if (note) box.appendChild(el('div', 'stat-note', note));
    return box;
  }

  // The inputs an error names are marked (its message is on its card).
  function markFields(violations) {
    for (const e of document.querySelectorAll('.rule-error')) e.classList.remove('rule-error');
    for (const x of violations) {
      if (x.severity !== 'error') continue;
      for (const name of x.fields || []) {
        const f = F.CONFIG_FIELDS.find((c) => c.json === name || c.key === name);
        const input = name === 'gpus' ? $('gpus') : f ? window.ParplanForm.inputOf(f.key) : null;
        if (input) input.classList.add('rule-error');
      }
    }
  }

  // An invalid config: a link to the plans that are valid for the same model, system and GPUs.
  function recommendLink(valid) {
    const box = $('recommend-link');
    box.textContent = '';
    box.hidden = valid;
    if (valid) return;
    const q = window.ParplanUrl.params();
    for (const f of F.CONFIG_FIELDS) if (f.key !== 'seq' && f.key !== 'precision') q.delete(f.key);
    q.delete('mode');
    const a = el('a', '', 'Recommend valid plans for this model, system and GPU count');
    a.href = '?' + q.toString();
    box.appendChild(document.createTextNode('Or let parplan search: '));
    box.appendChild(a);
  }

  function suggestions(m) {
    const list = (m && m.suggestions) || [];
    $('suggestions').textContent = '';
    for (const s of list) {
      const li = el('li', '', (s.change || '') + ' → ' + (s.peak_gib !== undefined ? num(s.peak_gib).toFixed(1) + ' GiB' : '') +
        (s.fits ? ' (fits)' : ' (still over)') +
        (s.step_time_s ? ', step ' + (num(s.step_time_delta_pct || 0) >= 0 ? '+' : '') +
          num(s.step_time_delta_pct || 0).toFixed(1) + '% (' + num(s.step_time_s).toFixed(2) + ' s)' : '') +
        (s.note ? ': ' + s.note : '') + ' ');
      if (s.config) {
        const a = el('a', 'try-link', 'check it');
        a.href = '?' + window.ParplanUrl.configUrl(s.config).toString();
        li.appendChild(a);
      }
      $('suggestions').appendChild(li);
    }
    $('suggestions-box').hidden = !list.length;
  }

  function show(validate, memory, perf) {
    $('check-results').hidden = false;
    const v = validate.ok ? validate.value : null;
    // An answer whose config breaks a rule (and has no nearest valid split)
    // estimates nothing: its zeros are not shown.
    const broken = (a) => a && !a.nearest_valid_split && (a.violations || []).some((x) => x.severity === 'error');
    const notEstimated = { message: 'not estimated: the config breaks the rules below' };
    const m = memory.ok && !broken(memory.value) ? memory.value : null;
    const p = perf.ok && !broken(perf.value) ? perf.value : null;
    if (memory.ok && !m) memory = { ok: false, error: notEstimated };
    if (perf.ok && !p) perf = { ok: false, error: notEstimated };
    const repair = (m && m.nearest_valid_split) || (p && p.nearest_valid_split) || null;
    // Each card computed for the repaired split says so (the change is in the note above the rules).
    const memNote = m && m.nearest_valid_split ? 'for the nearest valid split' : '';
    const perfNote = p && p.nearest_valid_split ? 'for the nearest valid split' : '';
    const model = (v && v.model) || (m && m.model) || {};
    const valid = v ? v.valid === true : false;
    $('check-title').textContent = (valid ? 'Valid' : 'Invalid') + ' config' + (model.name ? ' for ' + model.name : '');
    $('check-title').className = valid ? 'ok-text' : 'bad-text';
    const meta = [];
    const rc = (p && p.resolved_config) || (m && m.resolved_config) || (v && v.resolved_config);
    if (rc) meta.push('TP=' + (rc.tp || 1) + ' PP=' + (rc.pp || 1) + (rc.vpp > 1 ? ' VPP=' + rc.vpp : '') + ' CP=' + (rc.cp || 1) + ' EP=' + (rc.ep || 1) + (rc.etp ? ' ETP=' + rc.etp : '') + ' MBS=' + (rc.mbs || 1));
    if (rc && Facts.cpCommType(rc)) meta.push('cp_comm_type ' + Facts.cpCommType(rc));
    if (v && v.min_gpus) meta.push('smallest valid world ' + v.min_gpus + ' GPUs');
    $('check-meta').textContent = meta.join(' · ');
    const box = $('check-summary');
    box.textContent = '';
    box.appendChild(stat('Rules', el('span', 'badge ' + (valid ? 'badge-ok' : 'badge-bad'), valid ? 'valid' : (v ? v.errors + ' error' + (v.errors === 1 ? '' : 's') : 'not checked')),
      v ? (v.warnings || 0) + ' warnings, ' + (v.infos || 0) + ' notes' : validate.error.message));
    if (m) {
      const b = m.fits ? (m.tight ? el('span', 'badge badge-warn', 'tight') : el('span', 'badge badge-ok', 'fits')) : el('span', 'badge badge-bad', 'does not fit');
      const wrap = el('span');
      wrap.appendChild(document.createTextNode(gib(m.peak_bytes) + ' / ' + gib(m.capacity_bytes) + ' GiB '));
      wrap.appendChild(b);
      box.appendChild(stat('Peak memory per GPU', wrap, (num(m.headroom_bytes) >= 0 ? gib(m.headroom_bytes) + ' GiB free' : gib(-num(m.headroom_bytes)) + ' GiB over') + ' · stage ' + (m.peak_pp_rank || 0), '', memNote));
    } else {
      box.appendChild(stat('Peak memory per GPU', '–', memory.error.message, 'stat-error'));
    }
    if (p) {
      const u = num(p.uncertainty), p90 = num(p.uncertainty_p90);
      box.appendChild(stat('Tokens/s per GPU', fmt(p.tokens_per_s_per_gpu, 0) + (Number.isFinite(u) && u > 0 ? ' ±' + pct(u) : ''),
        Number.isFinite(u) && u > 0 ? 'typical error ±' + pct(u) + (Number.isFinite(p90) && p90 > 0 ? ', p90 ±' + pct(p90) : '') : 'uncertainty not given', '', perfNote));
      box.appendChild(stat('Step time', seconds(p.step_time_s), num(p.microbatches) > 0 ? p.microbatches + ' microbatches · GBS ' + num(p.gbs).toLocaleString('en-US') + ' · DP=' + (p.dp || 1) : '', '', perfNote));
      box.appendChild(stat('MFU', Number.isFinite(num(p.mfu)) ? (num(p.mfu) * 100).toFixed(1) + '%' : '–',
        num(p.peak_tflops) > 0 ? 'of ' + fmt(p.peak_tflops, 0) + ' TFLOP/s dense peak at ' + ((rc && rc.precision) || 'bf16') : '', '', perfNote));
      if (p.uncertainty_basis) box.appendChild(el('p', 'muted small basis', 'Uncertainty: ' + p.uncertainty_basis));
    } else {
      box.appendChild(stat('Step time', '–', perf.error.message, 'stat-error'));
    }
    // Rules: a card per error and warning with its rule id, fix and source.
    const violations = (v && v.violations) || [];
    const splitLine = repair ? 'Megatron rejects only the layer split: the estimates and pictures are ' + Facts.splitNote(repair) +
      (repair.cli_flags ? ' · CLI: ' + repair.cli_flags : '') + '.' : '';
    window.ParplanRules.render($('violations-box'), violations, splitLine);
    markFields(violations);
    recommendLink(valid);
    suggestions(m);
    window.ParplanResolved.render($('check-resolved'), [p, m, v].find((a) => a && ((a.resolved && a.resolved.length) || a.assumes)));
    const reasons = [];
    for (const a of [v, m, p]) {
      if (!a) continue;
      for (const r of (a.assumptions || []).concat(a.reasons || [])) if (!reasons.includes(r)) reasons.push(r);
    }
    fillList($('check-reasons'), reasons);
    $('check-reasons-box').hidden = !reasons.length;
    return { drawable: valid || !!repair, repair };
  }

  window.ParplanCheck = { show };
})();
