// Tests of the "Start from what you run" panel's facts (server/web/run_facts.js)
// under Node, no browser: the requests it sends (unset fields of an answer
// left out, since the server refuses seq_length 0 and gpus 0; the imported
// config as Recommend's `current` with only its training inputs as `config`),
// the argument counts and status filter, measured beside predicted with "—"
// for what the log does not give (never NaN or undefined), the p90 band, the
// steady window, the A/B rows, a failure as a rule card, and which box an API
// field violation belongs beside. The answers below are written in the JSON
// shape of proto/parplan/v1/planner.proto (ImportConfigResponse,
// CompareRunResponse) as the server prints it: snake_case, every plain field
// printed, int64 as strings, optional fields absent when unset.
//   node web_run_facts_test.js PATH/server/web/run_facts.js PATH/server/web/index.html
'use strict';

const assert = require('assert');
const R = require('./web_script.js')(process.argv[2], 'ParplanRunFacts');
const plain = (x) => JSON.parse(JSON.stringify(x));
const M = R.MISSING;
const noJunk = (text) => assert.ok(!/NaN|undefined|null|Infinity/.test(text), 'junk in: ' + text);

// value(): numbers, int64 strings; everything else NaN.
assert.strictEqual(R.value('128'), 128);
assert.strictEqual(R.value(0.5), 0.5);
for (const v of [undefined, null, '', 'NaN', 'Infinity', '-Infinity', {}, [], true, 'abc']) assert.ok(Number.isNaN(R.value(v)), String(v));
assert.strictEqual(R.seconds(undefined), M);
assert.strictEqual(R.seconds('NaN'), M);
assert.strictEqual(R.seconds(1.23456), '1.235 s');
assert.strictEqual(R.seconds(12.34), '12.3 s');
assert.strictEqual(R.gib(1073741824 * 71.25), '71.3 GiB');
assert.strictEqual(R.percent(0.123), '12.3%');
assert.strictEqual(R.signedPercent(-0.04), '−4.0%');
assert.strictEqual(R.signedPercent(0.125), '+12.5%');
assert.strictEqual(R.fixed('1234.5', 1), '1,234.5');

// An ImportConfig answer (values of Megatron-LM's examples/llama/train_llama3_70b... style
// launch: TP 8, PP 4, seq 8192, GBS 128), as printed: unset fields 0 / "" / [].
const imported = {
  format: 'megatron-lm-script',
  recipe: '',
  model: { id: 'llama3_70b' },
  config: {
    tp: 8, pp: 4, vpp: 0, cp: 1, ep: 0, mbs: 1, gbs: '128', seq_length: 8192, num_layers_in_first_pipeline_stage: 0,
    pipeline_layout: '', precision: 'bf16', recompute_granularity: '', recompute_modules: [], use_megatron_fsdp: false,
    sp: true, mtp_num_layers: 0, optimizer_state_dtype: '', peft: '', offload_modules: [], cp_comm_type: '',
  },
  placement: { system: 'h100-sxm', gpus: '64', gpus_per_node: 0, gpus_per_nvlink_domain: 0 },
  arguments: [
    { name: '--tensor-model-parallel-size', value: '8', status: 'mapped', maps_to: 'config.tp', note: '', line: '12', origin: 'script' },
    { name: '--lr', value: '3e-4', status: 'no_effect', maps_to: '', note: 'learning rate', line: '20', origin: 'script' },
    { name: '--use-mcore-models', value: 'true', status: 'no_effect', maps_to: '', note: '', line: '21', origin: 'script' },
    { name: '--rerun-mode', value: 'disabled', status: 'not_modelled', maps_to: '', note: 'not estimated', line: '22', origin: 'script' },
    null,
  ],
  mapped: 1, not_modelled: 1, no_effect: 2,
  valid: true, violations: [], warnings: [], resolved: [], assumes: '',
};

// Counts: the answer's own; the list's when the answer has none.
assert.deepStrictEqual(plain(R.argumentCounts(imported)), { mapped: 1, not_modelled: 1, no_effect: 2, total: 5 });
assert.deepStrictEqual(plain(R.argumentCounts({ arguments: imported.arguments })), { mapped: 1, not_modelled: 1, no_effect: 2, total: 5 });
assert.deepStrictEqual(plain(R.argumentCounts(null)), { mapped: 0, not_modelled: 0, no_effect: 0, total: 0 });
assert.deepStrictEqual(R.filterArguments(imported.arguments, 'no_effect').map((a) => a.name), ['--lr', '--use-mcore-models']);
assert.strictEqual(R.filterArguments(imported.arguments, '').length, 4);
assert.strictEqual(R.filterArguments(undefined, 'mapped').length, 0);
assert.strictEqual(R.statusLabel('not_modelled'), 'not modelled');

// Labels.
assert.strictEqual(R.configLabel(imported.config), 'TP=8 PP=4 CP=1 EP=1 MBS=1 GBS=128 seq 8192 bf16');
assert.strictEqual(R.configLabel(undefined), '');
assert.strictEqual(R.configLabel({ tp: 2, vpp: 5, etp: 1, recompute_granularity: 'full' }), 'TP=2 PP=1 VPP=5 CP=1 EP=1 ETP=1 MBS=1 recompute full');

// Sent back: unset fields dropped (seq_length 0 and gpus "0" would be refused),
// optional zeros that mean something kept, booleans kept.
const cleaned = plain(R.cleanConfig(imported.config));
assert.deepStrictEqual(cleaned, { tp: 8, pp: 4, cp: 1, mbs: 1, gbs: '128', seq_length: 8192, precision: 'bf16', use_megatron_fsdp: false, sp: true, mtp_num_layers: 0 });
assert.deepStrictEqual(plain(R.cleanPlacement({ system: '', gpus: '0', system_spec: { gpu_arch: '', hbm_gb: 0 } })), {});
assert.deepStrictEqual(plain(R.cleanPlacement({ system: 'gb200-nvl72', gpus: '128', gpus_per_nvlink_domain: 64 })),
  { system: 'gb200-nvl72', gpus: '128', gpus_per_nvlink_domain: 64 });

// ImportConfig request: the page's placement, the format only when chosen.
assert.deepStrictEqual(plain(R.importRequest('recipe:llama3_8b_pretrain_config', '', { system: 'h100-sxm', gpus: 8 })),
  { text: 'recipe:llama3_8b_pretrain_config', placement: { system: 'h100-sxm', gpus: 8 } });
assert.deepStrictEqual(plain(R.importRequest('x', 'hf-config', {})), { text: 'x', format: 'hf-config' });

// Estimate: the imported model, config and placement (the text's placement over the page's).
const est = plain(R.estimateRequest(imported, { system: 'b200', gpus: 16, gpus_per_nvlink_domain: 8 }));
assert.deepStrictEqual(est.model, { id: 'llama3_70b' });
assert.deepStrictEqual(est.placement, { system: 'h100-sxm', gpus: '64', gpus_per_nvlink_domain: 8 });
assert.deepStrictEqual(est.config, cleaned);

// Recommend: current = the imported config; config = its training inputs only (no pins).
const rec = plain(R.recommendRequest(imported, {}, 'headroom'));
assert.deepStrictEqual(rec.current, cleaned);
assert.deepStrictEqual(rec.config, { seq_length: 8192, gbs: '128', precision: 'bf16', mtp_num_layers: 0 });
assert.strictEqual(rec.objective, 'headroom');
assert.strictEqual(rec.top_k, 5);
assert.ok(!('tp' in rec.config) && !('pp' in rec.config));
assert.strictEqual(plain(R.recommendRequest({ model: { id: 'x' }, config: {} }, {}, '')).config, undefined);

// CompareRun request: config text and baseline only when given.
assert.deepStrictEqual(plain(R.compareRequest({ log: 'L', configText: '  ', configFormat: 'bridge-yaml', baselineLog: '', placement: { system: 'h100-sxm' } })),
  { log: 'L', placement: { system: 'h100-sxm' } });
assert.deepStrictEqual(plain(R.compareRequest({ log: 'L', configText: 'C', configFormat: 'bridge-yaml', baselineLog: 'A' })),
  { log: 'L', config_text: 'C', config_format: 'bridge-yaml', baseline_log: 'A' });

// A CompareRun answer with a prediction; the log gave no memory figures (absent).
const GiB = 1073741824;
const compared = {
  log_format: 'megatron-lm',
  window: { first_iteration: '20', last_iteration: '100', records: '81', median_step_s: 9.8, mean_step_s: 9.85, stddev_step_s: 0.05,
    min_step_s: 9.7, max_step_s: 10.1, spread: 0.021, global_batch_size: '128', skipped_iterations: '0', nan_iterations: '0',
    excluded: ['iterations 1-19: warm-up'], reason: '' },
  measured_step_s: 10.0, measured_tokens_per_s_per_gpu: 1638.4, measured_tflops_per_gpu: 420.5, measured_mfu: 0.425,
  has_prediction: true, predicted_step_s: 9.0, predicted_tokens_per_s_per_gpu: 1820.4, predicted_tflops_per_gpu: 467.2,
  predicted_mfu: 0.472, peak_tflops: 989, predicted_peak_bytes: 60 * GiB, predicted_fragmentation_allowance_bytes: 2 * GiB,
  capacity_bytes: 79.6 * GiB, step_error: -0.1, uncertainty: 0.05, uncertainty_p90: 0.12, within_uncertainty: true,
  gap: [], changes: [], gate: [], valid_measurement: false, failures: [],
};
const rows = R.measuredRows(compared);
const row = (key) => rows.find((r) => r.key === key);
for (const r of rows) for (const f of ['label', 'measured', 'predicted', 'error', 'band']) noJunk(r[f]);
assert.strictEqual(row('step').measured, '10.0 s');
assert.strictEqual(row('step').predicted, '9.000 s');
assert.strictEqual(row('step').error, '−10.0%');
assert.strictEqual(row('step').inside, true);  // the server's within_uncertainty
assert.strictEqual(row('step').band, 'inside ±12%');
assert.strictEqual(row('tokens').error, '+11.1%');
assert.strictEqual(row('tokens').inside, true);
assert.ok(row('mfu').label.includes('989'));
assert.strictEqual(row('mfu').measured, '42.5%');
assert.strictEqual(row('allocated').measured, M);
assert.strictEqual(row('allocated').predicted, '60.0 GiB of 79.6 GiB');
assert.strictEqual(row('allocated').error, M);
assert.strictEqual(row('reserved').measured, M);
assert.strictEqual(row('fragmentation').measured, M);
assert.strictEqual(row('fragmentation').predicted, '2.0 GiB allowed');

// The server's verdict is used for the step even when the client's arithmetic would differ.
assert.strictEqual(R.measuredRows(Object.assign({}, compared, { within_uncertainty: false }))[0].inside, false);
// Outside the band for tokens/s when the error is beyond p90.
assert.strictEqual(R.measuredRows(Object.assign({}, compared, { measured_tokens_per_s_per_gpu: 1000 }))[1].inside, false);

// Memory measured: allocated, reserved and the fragmentation with its bytes.
const withMemory = Object.assign({}, compared, { measured_max_allocated_bytes: 66 * GiB, measured_max_reserved_bytes: 72 * GiB,
  measured_fragmentation: 6 / 72 });
const mrow = (key) => R.measuredRows(withMemory).find((r) => r.key === key);
assert.strictEqual(mrow('allocated').measured, '66.0 GiB');
assert.strictEqual(mrow('allocated').error, '−9.1%');
assert.strictEqual(mrow('reserved').measured, '72.0 GiB');
assert.strictEqual(mrow('fragmentation').measured, '8.3% (6.0 GiB)');

// No prediction: the predicted side, errors and bands are all "—"; measured NaN strings too.
const measuredOnly = { log_format: 'nemo', has_prediction: false, no_prediction_reason: 'no config', predicted_step_s: 0,
  predicted_mfu: 0, step_error: 0, uncertainty_p90: 0, within_uncertainty: false, measured_step_s: 'NaN', measured_mfu: 0.41 };
for (const r of R.measuredRows(measuredOnly)) {
  for (const f of ['measured', 'predicted', 'error', 'band']) noJunk(r[f]);
  assert.strictEqual(r.predicted, M, r.key);
  assert.strictEqual(r.error, M, r.key);
  assert.strictEqual(r.band, M, r.key);
  assert.strictEqual(r.inside, null, r.key);
}
assert.strictEqual(R.measuredRows(measuredOnly)[0].measured, M);
assert.strictEqual(R.measuredRows(measuredOnly).find((r) => r.key === 'mfu').measured, '41.0%');
// An empty answer draws without junk.
for (const r of R.measuredRows({})) for (const f of ['label', 'measured', 'predicted', 'error', 'band']) noJunk(r[f]);

// Steady window.
const facts = R.windowFacts(compared.window);
const fact = (label) => facts.find((f) => f.label === label).text;
assert.strictEqual(fact('Iterations'), '20–100');
assert.strictEqual(fact('Records'), '81');
assert.strictEqual(fact('Median step'), '9.800 s');
assert.strictEqual(fact('Spread (p90 − p10) / median'), '2.1%');
assert.strictEqual(fact('Global batch'), '128');
for (const f of R.windowFacts({ first_iteration: '0', last_iteration: '0', records: '0' })) noJunk(f.text);
assert.strictEqual(R.windowFacts({ first_iteration: '0', last_iteration: '0' }).find((f) => f.label === 'Median step').text, M);
assert.deepStrictEqual(plain(R.windowFacts(undefined)), []);

// A/B.
assert.deepStrictEqual(plain(R.abRows(undefined)), []);
const ab = R.abRows({ step_a_s: 10, step_b_s: 9.5, step_change: -0.05, step_noise: 0.01, step_real: true, peak_real: false,
  verdict: 'B is 5.0% faster' });
assert.strictEqual(ab[0].change, '−5.0% (noise ±1.0%)');
assert.strictEqual(ab[0].real, 'real');
assert.strictEqual(ab[1].a, M);
assert.strictEqual(ab[1].change, M);
assert.strictEqual(ab[1].real, M);
for (const r of ab) for (const f of ['a', 'b', 'change', 'real']) noJunk(r[f]);

// A failure as a rule card.
const card = R.failureCard({ kind: 'oom', message: 'CUDA out of memory. Tried to allocate 2.00 GiB', line: '812',
  tried_bytes: 2 * GiB, capacity_bytes: 79.1 * GiB, free_bytes: 1.5 * GiB, after_iteration: '0', moment: 'first iteration',
  rule_id: 'memory.exceeds_hbm', fix: 'recompute full or PP 8' });
assert.strictEqual(card.severity, 'error');
assert.strictEqual(card.rule, 'memory.exceeds_hbm');
assert.strictEqual(card.message, 'OOM: CUDA out of memory. Tried to allocate 2.00 GiB');
assert.strictEqual(card.fix, 'recompute full or PP 8');
assert.strictEqual(card.details, 'log line 812 · first iteration · tried to allocate 2.0 GiB · capacity 79.1 GiB · 1.5 GiB free');
noJunk(R.failureCard({}).details + R.failureCard({}).message);
assert.strictEqual(R.failureCard({}).details, '');

// Which box a field violation goes beside.
assert.strictEqual(R.fieldTarget('text'), 'config');
assert.strictEqual(R.fieldTarget('config_text'), 'config');
assert.strictEqual(R.fieldTarget('overrides[2]'), 'config');
assert.strictEqual(R.fieldTarget('log'), 'log');
assert.strictEqual(R.fieldTarget('baseline_log'), 'baseline');
assert.strictEqual(R.fieldTarget('placement.gpus'), 'placement');
assert.strictEqual(R.fieldTarget('current.tp'), '');
assert.strictEqual(R.fieldTarget(undefined), '');

// The format select of the page (index.html) offers auto and exactly these
// names (ImportConfigRequest.format).
assert.deepStrictEqual(plain(R.FORMATS), ['megatron-lm-script', 'megatron-lm-args', 'megatron-lm-yaml', 'bridge-recipe',
  'bridge-overrides', 'bridge-yaml', 'hf-config']);
const html = require('fs').readFileSync(process.argv[3], 'utf8');
const select = /<select id="import-format">([\s\S]*?)<\/select>/.exec(html);
assert.ok(select, 'index.html has no #import-format select');
const options = Array.from(select[1].matchAll(/<option value="([^"]*)"/g)).map((m) => m[1]);
assert.deepStrictEqual(options, [''].concat(plain(R.FORMATS)));

console.log('web_run_facts_test: all passed');
