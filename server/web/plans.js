// parplan's web page, the plans of a Recommend answer: one table row per
// plan (and the rule-of-thumb starting point) with tokens/s, the model's
// uncertainty, MFU against its peak, memory against HBM and the comparison
// with the rule of thumb; under each plan's label its GPUs per NVLink domain
// (the plan's own placement, else the request's when given), its
// cp_comm_type when CP > 1 ("p2p (default)" when the config leaves it unset)
// and its warnings. The answer's header (model, sequence, GBS, search size,
// assumed versions) and notes (ties within the uncertainty) are drawn here
// too. Missing uncertainties are asked of EstimatePerformance. A Recommend
// from the user's plan (RecommendRequest.current, from the "Start from what
// you run" panel) shows under each plan what it changes from that plan, and
// that plan with its comparison in the notes.
//
// window.ParplanPlans = {
//   show(state, answer, onSelect)          -> state.answer / plans / startingPoint from the answer, drawn
//   render(state, onSelect)                -> redraws the table from state
//   fetchUncertainty(state, req, seq, onSelect) -> Promise; redraws when state.planSeq is still seq
//   planAt(state, i)                       -> plan i, or the starting point for i = -1
//   markRow(i)                             -> marks row i selected
//   placementOf(state, plan)               -> the request's placement with the plan's own over it
// }
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const { num, fmt, gib, seconds, el, fillList, pct } = window.ParplanFormat;
  const Facts = window.ParplanFacts;
  const { post } = window.ParplanApi;

  const planAt = (state, i) => (i < 0 ? state.startingPoint : state.plans[i]);

  // Where a plan runs: the request's placement, the plan's own (system, gpus,
  // GPUs per NVLink domain) over it.
  function placementOf(state, plan) {
    const placement = Object.assign({}, state.request && state.request.placement, (plan && plan.placement) || {});
    if (plan && num(plan.gpus) > 0) placement.gpus = num(plan.gpus);
    return placement;
  }

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
  function isTie(state, i) {
    if (i === 0) return false;
    const first = state.plans[0], u = uncertaintyOf(first);
    const a = num(first.tokens_per_s_per_gpu), b = num(state.plans[i].tokens_per_s_per_gpu);
    return Number.isFinite(u) && a > 0 && b > 0 && (a - b) / a <= u;
  }

  // The lines under a plan's label: placement, cp_comm_type, warnings, reasons.
  function labelFacts(state, plan, label) {
    const placement = placementOf(state, plan);
    const system = window.ParplanForm.systemOf(placement.system);
    const where = Facts.placementText(placement, system && system.nvlink_domain_size);
    const cp = Facts.cpCommType(plan.config);
    if (where || cp) {
      const line = el('div', 'plan-facts');
      if (cp) {
        line.appendChild(el('span', 'plan-cp', 'cp_comm_type ' + cp));
        line.title = 'CP=' + plan.config.cp + ': how the context-parallel ranks exchange keys and values';
      }
      if (where) line.appendChild(el('span', 'plan-placement', where));
      label.appendChild(line);
    }
    const warnings = Facts.warnings(plan);
    if (warnings.length) {
      const box = el('details', 'plan-warnings');
      box.appendChild(el('summary', 'badge badge-warn', warnings.length + ' warning' + (warnings.length === 1 ? '' : 's')));
      const ul = el('ul');
      for (const w of warnings) {
        const li = el('li');
        if (w.rule) li.appendChild(el('code', 'rule-id', w.rule));
        li.appendChild(document.createTextNode(' ' + (w.message || '')));
        ul.appendChild(li);
      }
      box.appendChild(ul);
      box.addEventListener('click', (e) => e.stopPropagation());
      label.appendChild(box);
    }
    // With RecommendRequest.current: what this plan changes from the user's plan.
    if (Array.isArray(plan.changes)) {
      const line = el('div', 'plan-changes');
      line.appendChild(el('span', 'plan-changes-label', plan.changes.length ? 'changes: ' : 'same as your plan'));
      line.appendChild(document.createTextNode(plan.changes.join(', ')));
      if (state.answer && state.answer.current) label.appendChild(line);
    }
    if (plan.reasons && plan.reasons.length) {
      const why = el('details', 'plan-why');
      why.appendChild(el('summary', '', 'why'));
      const ul = el('ul');
      fillList(ul, plan.reasons);
      why.appendChild(ul);
      why.addEventListener('click', (e) => e.stopPropagation());
      label.appendChild(why);
    }
  }

  // One table row for plan `i` (-1: the rule-of-thumb starting point).
  function planRow(state, plan, i, onSelect) {
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
    labelFacts(state, plan, label);
    tr.appendChild(label);
    const tps = el('td', 'num');
    tps.appendChild(el('span', '', fmt(plan.tokens_per_s_per_gpu, 0)));
    if (i >= 0 && isTie(state, i)) {
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
    tr.addEventListener('click', () => onSelect(i));
    tr.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') {
        e.preventDefault();
        onSelect(i);
      }
    });
    return tr;
  }

  function markRow(i) {
    for (const tr of document.querySelectorAll('#plans tbody tr')) {
      tr.setAttribute('aria-selected', tr.dataset.index === String(i) ? 'true' : 'false');
    }
  }

  function render(state, onSelect) {
    const body = document.querySelector('#plans tbody');
    body.textContent = '';
    state.plans.forEach((plan, i) => body.appendChild(planRow(state, plan, i, onSelect)));
    if (state.startingPoint) body.appendChild(planRow(state, state.startingPoint, -1, onSelect));
    if (!state.plans.length) {
      const tr = document.createElement('tr');
      const td = el('td', 'muted empty', 'No plans.');
      td.colSpan = 9;
      tr.appendChild(td);
      body.insertBefore(tr, body.firstChild);
    }
    markRow(state.selected);
    const notes = [];
    const u = uncertaintyOf(state.plans[0]);
    if (Number.isFinite(u)) {
      const ties = state.plans.map((p, i) => i).filter((i) => isTie(state, i)).map((i) => i + 1);
      const basis = perfField(state.plans[0], 'uncertainty_basis');
      notes.push('The performance model\'s typical error for plan 1 is ±' + pct(u) + (basis ? ' (' + basis.replace(/\.$/, '') + ')' : '') + '. ' +
        (ties.length ? 'Plan' + (ties.length > 1 ? 's ' : ' ') + ties.join(', ') + (ties.length > 1 ? ' are' : ' is') + ' within it of plan 1: treat them as ties and measure.' :
          'No other plan is within it of plan 1.'));
    }
    if (state.answer && state.answer.starting_point_comparison) notes.push(state.answer.starting_point_comparison);
    const current = state.answer && state.answer.current;
    if (current && current.label) {
      notes.push('Your plan: ' + current.label + ', ' + fmt(current.tokens_per_s_per_gpu, 0) + ' tokens/s/GPU, ' +
        gib(current.memory_peak_bytes) + ' / ' + gib(current.memory_capacity_bytes) + ' GiB' +
        (current.valid === false ? ' (breaks a rule)' : current.fits === false ? ' (does not fit)' : '') + '.');
    }
    if (state.answer && state.answer.current_comparison) notes.push(state.answer.current_comparison);
    $('plans-note').textContent = notes.join(' ');
    $('plans-note').hidden = !notes.length;
  }

  async function fetchUncertainty(state, req, seq, onSelect) {
    const list = state.plans.concat(state.startingPoint ? [state.startingPoint] : []);
    await Promise.all(list.map(async (plan) => {
      if (plan.uncertainty !== undefined && plan.peak_tflops !== undefined) return;
      try {
        plan._perf = await post('/v1/EstimatePerformance', { model: req.model, placement: placementOf(state, plan), config: plan.config || {} });
      } catch (e) {
        plan._perf = { uncertainty_basis: 'not available: ' + e.message };
      }
    }));
    if (seq === state.planSeq) render(state, onSelect);
  }

  function show(state, answer, onSelect) {
    state.answer = answer;
    state.plans = Array.isArray(answer.plans) ? answer.plans : [];
    const sp = answer.starting_point;
    state.startingPoint = sp && sp.label && num(sp.tokens_per_s_per_gpu) > 0 ? sp : null;
    state.selected = -2;
    $('results').hidden = false;
    const infeasible = answer.feasible === false || !!answer.infeasible_reason;
    const box = $('infeasible');
    box.hidden = !infeasible;
    box.textContent = '';
    if (infeasible) {
      box.appendChild(el('strong', '', 'No feasible plan. '));
      box.appendChild(document.createTextNode(answer.infeasible_reason || 'No configuration fits.'));
    }
    render(state, onSelect);
    const meta = [];
    if (answer.model && answer.model.name) meta.push(answer.model.name);
    if (answer.seq_length) meta.push('seq ' + answer.seq_length);
    if (!infeasible && num(answer.gbs) > 0) meta.push('GBS ' + num(answer.gbs).toLocaleString('en-US'));
    // int64 fields arrive as strings: "0" is truthy.
    if (num(answer.evaluated) > 0) meta.push(num(answer.evaluated).toLocaleString('en-US') + ' configs evaluated');
    else if (num(answer.candidates) > 0) meta.push(num(answer.candidates).toLocaleString('en-US') + ' configs considered');
    if (answer.truncated) meta.push('search cut short' + (answer.truncated_reason ? ': ' + answer.truncated_reason : ''));
    if (answer.assumes) meta.push('assumes ' + answer.assumes);
    $('plans-meta').textContent = meta.join(' · ');
    fillList($('answer-reasons'), answer.reasons);
    $('answer-reasons-box').hidden = !(answer.reasons && answer.reasons.length);
  }

  window.ParplanPlans = { show, render, fetchUncertainty, planAt, markRow, placementOf };
})();
