// parplan's web page, what the "Start from what you run" panel says about an
// ImportConfig or CompareRun answer, as data and text: the requests it sends
// (the imported model, config and placement passed back to
// EstimatePerformance and Recommend), the argument counts and filter, the
// measured-vs-predicted rows with their error and p90 band, the steady
// window, the A/B verdict and each log failure as a rule card. Pure
// functions over the API's JSON (snake_case, int64 as strings, optional
// measured fields absent when the log did not say), no DOM: paste.js and
// compare.js draw them, and tests/server/web_run_facts_test.js checks them
// under Node. A value that is absent or not a finite number prints as MISSING,
// never "NaN" or "undefined".
//
// window.ParplanRunFacts = {
//   MISSING                     -> "—"
//   FORMATS                     -> the ImportConfig format names, in the select's order
//   value(v)                    -> a finite Number, or NaN (undefined, null, "", "NaN", "Infinity", objects)
//   fixed(v, digits)            -> "1,234.5" (en-US grouping) or MISSING
//   seconds(s)                  -> "1.234 s" (3 significant decimals under 10 s) or MISSING
//   gib(bytes)                  -> "71.2 GiB" or MISSING
//   percent(f, digits)          -> "12.3%" of a fraction, or MISSING
//   signedPercent(f)            -> "+12.3%" / "−4.0%" of a fraction, or MISSING
//   STATUSES / statusLabel(s)   -> mapped | not_modelled | no_effect, and "not modelled", ...
//   argumentCounts(answer)      -> {mapped, not_modelled, no_effect, total}
//   filterArguments(list, status) -> the arguments of that status ("" = all)
//   configLabel(config)         -> "TP=8 PP=4 VPP=5 CP=1 EP=1 MBS=1 GBS=512 seq 8192 bf16" ("" for none)
//   cleanConfig(config)         -> a ParallelConfig answer ready to send back (unset fields dropped)
//   cleanPlacement(p)           -> a Placement answer ready to send back (unset fields dropped)
//   importRequest(text, format, placement)        -> ImportConfigRequest JSON
//   estimateRequest(imported, placement)          -> EstimatePerformanceRequest JSON
//   recommendRequest(imported, placement, objective) -> RecommendRequest JSON with `current`
//   compareRequest(input)       -> CompareRunRequest JSON from {log, configText, configFormat, baselineLog, placement}
//   measuredRows(answer)        -> [{key, label, measured, predicted, error, band, inside}] as text
//   windowFacts(window)         -> [{label, text}] of the steady window
//   abRows(ab)                  -> [{label, a, b, change, real}] as text; [] without a verdict
//   failureCard(failure)        -> a Violation-shaped object for rules.js's card, with `details`
//                                  (log line, iteration, moment, bytes) as one line
//   fieldTarget(field)          -> "config" | "log" | "baseline" | "placement" | "" for an API field violation
// }
'use strict';

(function () {
  const MISSING = '—';
  const GiB = 1073741824;
  const FORMATS = ['megatron-lm-script', 'megatron-lm-args', 'megatron-lm-yaml', 'bridge-recipe', 'bridge-overrides',
    'bridge-yaml', 'hf-config'];
  const STATUSES = ['mapped', 'not_modelled', 'no_effect'];
  const STATUS_LABELS = { mapped: 'mapped', not_modelled: 'not modelled', no_effect: 'no effect' };

  // proto3 JSON prints NaN and infinities as strings; int64 as strings.
  function value(v) {
    if (v === undefined || v === null || v === '' || typeof v === 'object' || typeof v === 'boolean') return NaN;
    const n = Number(v);
    return Number.isFinite(n) ? n : NaN;
  }

  function fixed(v, digits) {
    const n = value(v);
    if (!Number.isFinite(n)) return MISSING;
    return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function seconds(s) {
    const n = value(s);
    if (!Number.isFinite(n)) return MISSING;
    return (n < 10 ? n.toFixed(3) : n.toFixed(1)) + ' s';
  }

  function gib(bytes) {
    const n = value(bytes);
    return Number.isFinite(n) ? (n / GiB).toFixed(1) + ' GiB' : MISSING;
  }

  function percent(f, digits) {
    const n = value(f);
    return Number.isFinite(n) ? (n * 100).toFixed(digits === undefined ? 1 : digits) + '%' : MISSING;
  }

  function signedPercent(f) {
    const n = value(f);
    if (!Number.isFinite(n)) return MISSING;
    return (n >= 0 ? '+' : '−') + Math.abs(n * 100).toFixed(1) + '%';
  }

  const statusLabel = (s) => STATUS_LABELS[s] || String(s || 'unknown');

  function argumentCounts(answer) {
    const a = answer || {};
    const list = Array.isArray(a.arguments) ? a.arguments : [];
    const counted = (status) => list.filter((x) => x && x.status === status).length;
    const pick = (field, status) => (Number.isFinite(value(a[field])) ? value(a[field]) : counted(status));
    return {
      mapped: pick('mapped', 'mapped'),
      not_modelled: pick('not_modelled', 'not_modelled'),
      no_effect: pick('no_effect', 'no_effect'),
      total: list.length,
    };
  }

  function filterArguments(list, status) {
    const all = Array.isArray(list) ? list.filter((x) => x) : [];
    return status ? all.filter((x) => x.status === status) : all;
  }

  function configLabel(config) {
    const c = config || {};
    const n = (k) => value(c[k]);
    if (!Object.keys(c).length) return '';
    const parts = ['TP=' + (n('tp') || 1), 'PP=' + (n('pp') || 1)];
    if (n('vpp') > 1) parts.push('VPP=' + n('vpp'));
    parts.push('CP=' + (n('cp') || 1), 'EP=' + (n('ep') || 1));
    if (n('etp') > 0) parts.push('ETP=' + n('etp'));
    parts.push('MBS=' + (n('mbs') || 1));
    if (n('gbs') > 0) parts.push('GBS=' + n('gbs'));
    if (n('seq_length') > 0) parts.push('seq ' + n('seq_length'));
    if (c.precision) parts.push(String(c.precision));
    if (c.recompute_granularity && c.recompute_granularity !== 'none') parts.push('recompute ' + c.recompute_granularity);
    return parts.join(' ');
  }

  // Optional fields (printed only when set) whose 0 means something.
  const ZERO_MEANS_SET = ['etp', 'mtp_num_layers', 'fine_grained_offloading_max_inflight_offloads', 'optimizer_offload_fraction'];

  // Answers print every plain field (0, "", []); a request leaves the unset
  // ones out (the server refuses seq_length 0 and gpus 0). Booleans stay:
  // false is either the default or an explicit optional false.
  function clean(obj, zeroMeansSet) {
    const out = {};
    for (const [k, v] of Object.entries(obj || {})) {
      if (v === undefined || v === null || v === '') continue;
      if (Array.isArray(v) && !v.length) continue;
      if ((typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v))) && Number(v) === 0 &&
          !zeroMeansSet.includes(k)) continue;
      out[k] = v;
    }
    return out;
  }

  const cleanConfig = (config) => clean(config, ZERO_MEANS_SET);

  function cleanPlacement(p) {
    const out = clean(p, []);
    if (out.system_spec && typeof out.system_spec === 'object') {
      const spec = clean(out.system_spec, []);
      if (Object.keys(spec).length) out.system_spec = spec;
      else delete out.system_spec;
    }
    return out;
  }

  // The imported placement, the page's fields filling what the text left out.
  function placementFor(imported, placement) {
    return Object.assign({}, cleanPlacement(placement), cleanPlacement(imported && imported.placement));
  }

  function importRequest(text, format, placement) {
    const req = { text: String(text || '') };
    if (format) req.format = format;
    const p = cleanPlacement(placement);
    if (Object.keys(p).length) req.placement = p;
    return req;
  }

  function estimateRequest(imported, placement) {
    return { model: (imported && imported.model) || {}, placement: placementFor(imported, placement),
      config: cleanConfig(imported && imported.config) };
  }

  // Recommend keeps what the run trains (sequence, batch, precision, MTP and
  // the training knobs: RecommendRequest.config's inputs) and searches the
  // parallelism; the imported config is `current`, so every plan lists what
  // it changes from it. Pins (tp, pp, ...) are not sent: they would fix the
  // search to the plan it starts from.
  const INPUTS = ['seq_length', 'gbs', 'precision', 'mtp_num_layers', 'optimizer_state_dtype', 'grad_reduce_in_fp32', 'peft',
    'bridge_version', 'front_end'];

  function recommendRequest(imported, placement, objective) {
    const current = cleanConfig(imported && imported.config);
    const config = {};
    for (const k of INPUTS) if (current[k] !== undefined) config[k] = current[k];
    const req = { model: (imported && imported.model) || {}, placement: placementFor(imported, placement), current,
      objective: objective || 'throughput', top_k: 5 };
    if (Object.keys(config).length) req.config = config;
    return req;
  }

  function compareRequest(input) {
    const i = input || {};
    const req = { log: String(i.log || '') };
    if (i.configText && String(i.configText).trim()) {
      req.config_text = String(i.configText);
      if (i.configFormat) req.config_format = i.configFormat;
    }
    const p = cleanPlacement(i.placement);
    if (Object.keys(p).length) req.placement = p;
    if (i.baselineLog && String(i.baselineLog).trim()) req.baseline_log = String(i.baselineLog);
    return req;
  }

  // (predicted - measured) / measured, as CompareRun's step_error.
  function errorOf(predicted, measured) {
    const p = value(predicted), m = value(measured);
    return Number.isFinite(p) && Number.isFinite(m) && m > 0 ? (p - m) / m : NaN;
  }

  // Measured beside predicted. The step's error and band are the server's
  // (|step_error| <= the p90 band); tokens/s and MFU use the same band;
  // memory has no stated band.
  function measuredRows(answer) {
    const a = answer || {};
    const pred = a.has_prediction === true;
    const p90 = value(a.uncertainty_p90);
    const P = (v) => (pred ? v : undefined);
    const band = (err, own) => {
      if (!pred || !Number.isFinite(err) || !(p90 > 0)) return { band: MISSING, inside: null };
      const inside = own === undefined ? Math.abs(err) <= p90 : own === true;
      return { band: (inside ? 'inside' : 'outside') + ' ±' + percent(p90, 0), inside };
    };
    const peak = value(a.peak_tflops);
    const rows = [];
    const stepErr = pred && Number.isFinite(value(a.measured_step_s)) ? value(a.step_error) : NaN;
    rows.push(Object.assign({ key: 'step', label: 'Step time', measured: seconds(a.measured_step_s),
      predicted: seconds(P(a.predicted_step_s)), error: signedPercent(stepErr) }, band(stepErr, a.within_uncertainty)));
    const tpsErr = errorOf(P(a.predicted_tokens_per_s_per_gpu), a.measured_tokens_per_s_per_gpu);
    rows.push(Object.assign({ key: 'tokens', label: 'Tokens/s per GPU', measured: fixed(a.measured_tokens_per_s_per_gpu, 0),
      predicted: fixed(P(a.predicted_tokens_per_s_per_gpu), 0), error: signedPercent(tpsErr) }, band(tpsErr)));
    const tfErr = errorOf(P(a.predicted_tflops_per_gpu), a.measured_tflops_per_gpu);
    rows.push(Object.assign({ key: 'tflops', label: 'Model TFLOP/s per GPU', measured: fixed(a.measured_tflops_per_gpu, 1),
      predicted: fixed(P(a.predicted_tflops_per_gpu), 1), error: signedPercent(tfErr) }, band(tfErr)));
    const mfuErr = errorOf(P(a.predicted_mfu), a.measured_mfu);
    rows.push(Object.assign({ key: 'mfu', label: 'MFU' + (peak > 0 ? ' (of ' + fixed(peak, 0) + ' TFLOP/s peak)' : ''),
      measured: percent(a.measured_mfu), predicted: percent(P(a.predicted_mfu)), error: signedPercent(mfuErr) }, band(mfuErr)));
    const cap = value(a.capacity_bytes);
    const capText = pred && cap > 0 ? ' of ' + gib(cap) : '';
    const noBand = { band: MISSING, inside: null };
    rows.push(Object.assign({ key: 'allocated', label: 'Memory: max allocated', measured: gib(a.measured_max_allocated_bytes),
      predicted: pred ? gib(a.predicted_peak_bytes) + capText : MISSING,
      error: signedPercent(errorOf(P(a.predicted_peak_bytes), a.measured_max_allocated_bytes)) }, noBand));
    rows.push(Object.assign({ key: 'reserved', label: 'Memory: max reserved', measured: gib(a.measured_max_reserved_bytes),
      predicted: pred ? gib(a.predicted_peak_bytes) + capText : MISSING,
      error: signedPercent(errorOf(P(a.predicted_peak_bytes), a.measured_max_reserved_bytes)) }, noBand));
    // The allocator's share: measured as a fraction (and its bytes), against
    // the bytes the memory model allows for it.
    const resv = value(a.measured_max_reserved_bytes), alloc = value(a.measured_max_allocated_bytes);
    const fragBytes = Number.isFinite(resv) && Number.isFinite(alloc) && resv >= alloc ? ' (' + gib(resv - alloc) + ')' : '';
    const fragAllowance = value(a.predicted_fragmentation_allowance_bytes);
    rows.push(Object.assign({ key: 'fragmentation', label: 'Fragmentation: (reserved − allocated) / reserved',
      measured: percent(a.measured_fragmentation) === MISSING ? MISSING : percent(a.measured_fragmentation) + fragBytes,
      predicted: pred && Number.isFinite(fragAllowance) ? gib(fragAllowance) + ' allowed' : MISSING, error: MISSING }, noBand));
    return rows;
  }

  function windowFacts(w) {
    if (!w) return [];
    const facts = [];
    const first = value(w.first_iteration), last = value(w.last_iteration);
    facts.push({ label: 'Iterations', text: Number.isFinite(first) && Number.isFinite(last) && last > 0 ? first + '–' + last : MISSING });
    facts.push({ label: 'Records', text: fixed(w.records, 0) });
    facts.push({ label: 'Median step', text: seconds(w.median_step_s) });
    facts.push({ label: 'Spread (p90 − p10) / median', text: percent(w.spread) });
    const mean = seconds(w.mean_step_s), sd = seconds(w.stddev_step_s);
    facts.push({ label: 'Mean ± std. dev.', text: mean === MISSING ? MISSING : mean + (sd === MISSING ? '' : ' ± ' + sd) });
    const lo = seconds(w.min_step_s), hi = seconds(w.max_step_s);
    facts.push({ label: 'Min – max', text: lo === MISSING && hi === MISSING ? MISSING : lo + ' – ' + hi });
    facts.push({ label: 'Median TFLOP/s per GPU', text: fixed(w.median_tflops_per_gpu, 1) });
    facts.push({ label: 'Global batch', text: value(w.global_batch_size) > 0 ? fixed(w.global_batch_size, 0) : MISSING });
    facts.push({ label: 'Skipped / NaN iterations', text: fixed(w.skipped_iterations, 0) + ' / ' + fixed(w.nan_iterations, 0) });
    return facts;
  }

  function abRows(ab) {
    if (!ab) return [];
    const yes = (real) => (real ? 'real' : 'within noise');
    const stepNoise = value(ab.step_noise);
    return [
      { label: 'Step time', a: seconds(ab.step_a_s), b: seconds(ab.step_b_s),
        change: signedPercent(ab.step_change) + (Number.isFinite(stepNoise) ? ' (noise ±' + percent(stepNoise) + ')' : ''),
        real: Number.isFinite(value(ab.step_change)) ? yes(ab.step_real === true) : MISSING },
      { label: 'Peak memory', a: gib(ab.peak_a_bytes), b: gib(ab.peak_b_bytes),
        change: Number.isFinite(value(ab.peak_change_bytes)) ? (value(ab.peak_change_bytes) >= 0 ? '+' : '−') +
          gib(Math.abs(value(ab.peak_change_bytes))) : MISSING,
        real: Number.isFinite(value(ab.peak_change_bytes)) ? yes(ab.peak_real === true) : MISSING },
    ];
  }

  function failureCard(f) {
    const x = f || {};
    const facts = [];
    if (value(x.line) > 0) facts.push('log line ' + value(x.line));
    if (value(x.after_iteration) > 0) facts.push('after iteration ' + value(x.after_iteration));
    if (x.moment) facts.push(String(x.moment));
    const tried = value(x.tried_bytes), cap = value(x.capacity_bytes), free = value(x.free_bytes);
    if (Number.isFinite(tried)) facts.push('tried to allocate ' + gib(tried));
    if (Number.isFinite(cap)) facts.push('capacity ' + gib(cap));
    if (Number.isFinite(free)) facts.push(gib(free) + ' free');
    return {
      severity: 'error',
      rule: x.rule_id || '',
      message: (x.kind ? x.kind.toUpperCase() + ': ' : '') + (x.message || ''),
      fields: [],
      fix: x.fix || '',
      details: facts.join(' · '),
    };
  }

  // Which box an API field violation belongs beside.
  function fieldTarget(field) {
    const f = String(field || '');
    const root = f.split(/[.[]/)[0];
    if (['text', 'format', 'overrides', 'config_text', 'config_format', 'bridge_version'].includes(root)) return 'config';
    if (root === 'log') return 'log';
    if (root === 'baseline_log' || root === 'baseline_config_text') return 'baseline';
    if (root === 'placement') return 'placement';
    return '';
  }

  window.ParplanRunFacts = {
    MISSING, FORMATS, STATUSES, value, fixed, seconds, gib, percent, signedPercent, statusLabel, argumentCounts, filterArguments,
    configLabel, cleanConfig, cleanPlacement, importRequest, estimateRequest, recommendRequest, compareRequest, measuredRows,
    windowFacts, abRows, failureCard, fieldTarget,
  };
})();
