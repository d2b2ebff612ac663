// parplan's web page, "Start from what you run", the log half: the training
// log (and an optional baseline log for A/B) goes to /v1/CompareRun with the
// config box's text and format and the page's System / GPUs fields. The
// answer is drawn here: the log format; the steady window (iterations,
// records, median, spread, what was excluded and why); measured beside
// predicted step time, tokens/s/GPU, MFU against its peak and memory (max
// allocated, max reserved, fragmentation against the predicted peak and the
// capacity) with the error and whether it is inside the p90 band; the gap by
// step term; the changes predicted to help with their effect badges; the
// measurement gate as a checklist; the A/B verdict; each failure as a rule
// card with its rule id and fix; the resolved plan. A value the log does not
// give shows "—" (run_facts.js).
//
// window.ParplanCompare = {
//   init()         -> wires the log boxes and the Compare button (once, at start)
//   draw(answer)   -> draws a CompareRun answer in #compare-result
// }
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const R = window.ParplanRunFacts;
  const Facts = window.ParplanFacts;
  const { el, fillList } = window.ParplanFormat;
  const { post } = window.ParplanApi;
  const { setState, clearError } = window.ParplanStatus;
  const MAX_LOG_BYTES = 4194304;  // CompareRunRequest.log: at most 4 MiB
  let seq = 0;

  const badge = (cls, text) => el('span', 'badge ' + cls, text);

  // A titled block of the answer; `content` null leaves it out.
  function section(title, content, id) {
    if (!content) return null;
    const box = el('section', 'compare-section');
    if (id) box.id = id;
    box.appendChild(el('h4', '', title));
    box.appendChild(content);
    return box;
  }

  // A table with a header row; rows are arrays of cells (strings or nodes).
  function table(id, heads, rows, rowClass) {
    const wrap = el('div', 'table-scroll');
    const t = el('table', 'plans compare-table');
    t.id = id;
    const head = el('thead');
    const tr = el('tr');
    for (const h of heads) {
      const th = el('th', h.num ? 'num' : '', h.text);
      th.scope = 'col';
      if (h.title) th.title = h.title;
      tr.appendChild(th);
    }
    head.appendChild(tr);
    t.appendChild(head);
    const body = el('tbody');
    rows.forEach((cells, i) => {
      const row = el('tr', rowClass ? rowClass(i) : '');
      cells.forEach((c, j) => {
        const td = el(j === 0 ? 'th' : 'td', heads[j].num ? 'num' : '');
        if (j === 0) td.scope = 'row';
        if (c instanceof Node) td.appendChild(c);
        else td.textContent = c;
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    t.appendChild(body);
    wrap.appendChild(t);
    return wrap;
  }

  function windowBlock(w) {
    const facts = R.windowFacts(w);
    if (!facts.length) return null;
    const box = el('div');
    const dl = el('dl', 'facts');
    for (const f of facts) {
      const item = el('div', 'fact');
      item.appendChild(el('dt', '', f.label));
      item.appendChild(el('dd', '', f.text));
      dl.appendChild(item);
    }
    box.appendChild(dl);
    if (w.reason) box.appendChild(el('p', 'muted small', w.reason));
    const excluded = Array.isArray(w.excluded) ? w.excluded : [];
    if (excluded.length) {
      const more = el('details', 'reasons-box');
      more.appendChild(el('summary', '', 'Excluded from the window (' + excluded.length + ')'));
      const ul = el('ul');
      fillList(ul, excluded);
      more.appendChild(ul);
      box.appendChild(more);
    }
    return box;
  }

  function measuredBlock(a) {
    const rows = R.measuredRows(a).map((r) => {
      const band = r.inside === null ? r.band : badge(r.inside ? 'badge-ok' : 'badge-bad', r.band);
      return [r.label, r.measured, r.predicted, r.error, band];
    });
    const keys = R.measuredRows(a).map((r) => r.key);
    return table('compare-measured', [
      { text: 'Quantity' }, { text: 'Measured', num: true }, { text: 'Predicted', num: true },
      { text: 'Error', num: true, title: '(predicted − measured) / measured' },
      { text: 'p90 band', title: "inside the performance model's 90th-percentile error, or outside it" },
    ], rows, (i) => 'measured-' + keys[i]);
  }

  function gapBlock(gap) {
    if (!Array.isArray(gap) || !gap.length) return null;
    return table('compare-gap', [
      { text: 'Term' }, { text: 'Predicted', num: true }, { text: 'Needed to match', num: true },
      { text: 'Factor', num: true, title: 'needed / predicted' }, { text: 'Note' },
    ], gap.map((g) => [g.term || '', R.seconds(g.predicted_s), R.seconds(g.needed_s),
      Number.isFinite(R.value(g.factor)) ? '×' + R.fixed(g.factor, 2) : R.MISSING, g.note || '']));
  }

  function changesBlock(changes) {
    if (!Array.isArray(changes) || !changes.length) return null;
    return table('compare-changes', [
      { text: 'Change' }, { text: 'Predicted step', num: true }, { text: 'Saves', num: true }, { text: 'Effect' },
    ], changes.map((c) => {
      const effect = el('span');
      const text = Facts.effectBadge(c.effect);
      if (text) effect.appendChild(el('span', 'badge effect-badge effect-' + c.effect, text));
      else effect.appendChild(el('span', 'muted', c.effect ? 'execution only: same math' : R.MISSING));
      return [c.change || '', R.seconds(c.predicted_step_s), R.percent(c.predicted_gain), effect];
    }));
  }

  function gateBlock(a) {
    if (!Array.isArray(a.gate) || !a.gate.length) return null;
    const box = el('div');
    box.appendChild(el('p', 'gate-verdict', ''));
    box.firstChild.appendChild(badge(a.valid_measurement ? 'badge-ok' : 'badge-bad',
      a.valid_measurement ? 'valid measurement' : 'not a valid measurement'));
    const ul = el('ul', 'gate-list');
    for (const g of a.gate) {
      // An item the inputs cannot tell (checked false) does not count against the gate.
      const unchecked = g.checked === false;
      const li = el('li', unchecked ? 'gate-na' : (g.ok ? 'gate-ok' : 'gate-fail'));
      li.appendChild(el('span', 'gate-mark', unchecked ? '–' : (g.ok ? '✓' : '✗')));
      li.appendChild(el('span', 'sr-only', unchecked ? 'not checked: ' : (g.ok ? 'passed: ' : 'failed: ')));
      li.appendChild(el('code', '', g.name || ''));
      if (g.detail) li.appendChild(document.createTextNode(' ' + g.detail));
      ul.appendChild(li);
    }
    box.appendChild(ul);
    return box;
  }

  function abBlock(ab) {
    const rows = R.abRows(ab);
    if (!rows.length) return null;
    const box = el('div');
    if (ab.verdict) box.appendChild(el('p', 'ab-verdict', ab.verdict));
    box.appendChild(table('compare-ab', [
      { text: 'Quantity' }, { text: 'A (baseline)', num: true }, { text: 'B (this run)', num: true },
      { text: 'B − A', num: true }, { text: 'Real or noise' },
    ], rows.map((r) => [r.label, r.a, r.b, r.change, r.real])));
    return box;
  }

  function failuresBlock(failures) {
    if (!Array.isArray(failures) || !failures.length) return null;
    const cards = el('div', 'rule-cards');
    for (const f of failures) {
      const v = R.failureCard(f);
      const card = window.ParplanRules.card(v);
      if (v.details) card.appendChild(el('p', 'rule-source muted', v.details));
      cards.appendChild(card);
    }
    return cards;
  }

  function draw(a) {
    $('compare-result').hidden = false;
    $('compare-title').textContent = 'Run compared' + (a.log_format ? ': ' + a.log_format + ' log' : '');
    const meta = [];
    if (a.has_prediction) meta.push('predicted for the config');
    if (a.calibration) meta.push('calibration: ' + a.calibration);
    if (a.assumes) meta.push('assumes ' + a.assumes);
    $('compare-meta').textContent = meta.join(' · ');
    const note = $('compare-no-prediction');
    note.hidden = a.has_prediction === true;
    note.textContent = a.has_prediction ? '' : 'Measured side only: ' + (a.no_prediction_reason || 'no config to predict from.');
    const box = $('compare-sections');
    box.textContent = '';
    const blocks = [
      section('Steady window', windowBlock(a.window), 'compare-window'),
      section('Measured vs predicted', measuredBlock(a), 'compare-vs'),
      section('Gap by term', gapBlock(a.gap)),
      section('Changes predicted to help', changesBlock(a.changes)),
      section('Measurement gate', gateBlock(a), 'compare-gate'),
      section('A/B verdict', abBlock(a.ab), 'compare-ab-box'),
      section('Failures', failuresBlock(a.failures), 'compare-failures'),
    ];
    for (const b of blocks) if (b) box.appendChild(b);
    window.ParplanResolved.render($('compare-resolved'), a);
    const reasons = (a.log_notes || []).concat(a.reasons || []);
    fillList($('compare-reasons'), reasons);
    $('compare-reasons-box').hidden = !reasons.length;
  }

  async function runCompare() {
    const Paste = window.ParplanPaste;
    clearError();
    Paste.clearErrors();
    const log = $('log-text').value;
    if (!log.trim()) {
      Paste.showError({ code: 'INVALID_INPUT', message: 'paste a training log or choose a file (nothing was sent)',
        violations: [{ field: 'log', description: 'empty' }] }, 'Compare', 'log');
      return;
    }
    const where = Paste.placement();
    if (!where.ok) return;
    const req = R.compareRequest({ log, configText: $('import-text').value, configFormat: $('import-format').value,
      baselineLog: $('baseline-text').value, placement: where.placement });
    const mine = ++seq;
    setState('loading', 'Comparing the run…');
    $('compare-button').disabled = true;
    let a;
    try {
      a = await post('/v1/CompareRun', req);
    } catch (e) {
      if (mine === seq) Paste.showError(e, 'Compare', 'log');
      return;
    } finally {
      if (mine === seq) $('compare-button').disabled = false;
    }
    if (mine !== seq) return;
    draw(a);
    const step = R.seconds(a.measured_step_s);
    setState('done', 'Compared the run: measured step ' + step +
      (a.has_prediction ? ', predicted ' + R.seconds(a.predicted_step_s) + ' (' + R.signedPercent(a.step_error) + ')' : '') + '.');
  }

  function init() {
    const Paste = window.ParplanPaste;
    $('compare-form').addEventListener('submit', (e) => {
      e.preventDefault();
      runCompare();
    });
    $('log-file').addEventListener('change', () => Paste.readFile($('log-file'), $('log-text'), MAX_LOG_BYTES, 'log'));
    $('baseline-file').addEventListener('change', () => Paste.readFile($('baseline-file'), $('baseline-text'), MAX_LOG_BYTES, 'baseline'));
    Paste.submitOnCtrlEnter($('log-text'), $('compare-form'));
    Paste.submitOnCtrlEnter($('baseline-text'), $('compare-form'));
    Paste.dropTarget($('log-text'), MAX_LOG_BYTES, 'log');
    Paste.dropTarget($('baseline-text'), MAX_LOG_BYTES, 'baseline');
  }

  window.ParplanCompare = { init, draw };
})();
