// Tests of the web page's field table (server/web/fields.js) under Node, no
// browser: every value kind is parsed and refused as the page shows it
// (the value and what is allowed named), the config and system JSON use the
// proto's field names, and a pasted model is sent as a Hugging Face config
// or an inline spec; the placement field (GPUs per NVLink domain) takes 0..4,096.
//   node web_fields_test.js PATH/server/web/fields.js
'use strict';

const assert = require('assert');
const F = require('./web_script.js')(process.argv[2], 'ParplanFields');
// Objects made in the vm context have its prototypes: compare them as JSON.
const plain = (x) => JSON.parse(JSON.stringify(x));
const field = (key) => F.CONFIG_FIELDS.find((f) => f.key === key) || F.SYSTEM_FIELDS.find((f) => f.key === key);

// Every field has a URL key, a JSON name and a kind the parser knows; keys are unique.
const keys = new Set();
for (const f of F.CONFIG_FIELDS.concat(F.SYSTEM_FIELDS, F.PLACEMENT_FIELDS)) {
  assert.ok(f.key && f.json && f.label, JSON.stringify(f));
  assert.ok(['int', 'number', 'enum', 'bool', 'list', 'ints', 'text'].includes(f.kind), f.key);
  assert.ok(!keys.has(f.key), 'duplicate ' + f.key);
  keys.add(f.key);
}
// The CLI's config flags are all there.
for (const k of ['tp', 'pp', 'vpp', 'cp', 'ep', 'etp', 'sp', 'mbs', 'gbs', 'seq', 'precision', 'recompute',
  'recompute-method', 'recompute-layers', 'recompute-modules', 'dist-opt', 'fsdp', 'grad-dtype', 'optimizer-dtype',
  'peft', 'cpu-offload-layers', 'offload-modules', 'first-stage-layers', 'last-stage-layers', 'pp-layout',
  'mtp-layers', 'tp-comm-overlap', 'overlap-grad-reduce', 'overlap-moe-expert-parallel-comm', 'cuda-graph-impl',
  'cuda-graph-modules', 'attention-backend', 'account-for-embedding-in-pipeline-split',
  'account-for-loss-in-pipeline-split', 'use-transformer-engine-op-fuser',
  'fine-grained-offloading-max-inflight-offloads', 'cp-comm-type', 'hierarchical-context-parallel-sizes',
  'optimizer-cpu-offload', 'optimizer-offload-fraction', 'gpu-arch', 'hbm-gib', 'hbm-tbps', 'bf16-tflops', 'fp8-tflops', 'fp4-tflops',
  'nvlink-gbps', 'nvlink-domain', 'scaleout-gbps', 'nics-per-node', 'nic-gbps', 'pcie-gbps', 'gpus-per-node', 'gpus-per-domain']) {
  assert.ok(keys.has(k), 'missing ' + k);
}

// The placement field: GPUs per NVLink domain, 0 (the even split) up to 4,096.
const perDomain = F.PLACEMENT_FIELDS.find((f) => f.key === 'gpus-per-domain');
assert.strictEqual(perDomain.json, 'gpus_per_nvlink_domain');
assert.strictEqual(F.parseField(perDomain, '64').value, 64);
assert.strictEqual(F.parseField(perDomain, '0').value, 0);
assert.strictEqual(F.parseField(perDomain, '').value, undefined);
assert.strictEqual(F.parseField(perDomain, '4097').error, '4097 is out of range; allowed 0..4,096');

let r0;
// Integers: whole numbers in range; the error names the value and the range.
assert.deepStrictEqual(plain(F.parseField(field('tp'), ' 8 ')), { ok: true, value: 8 });
r0 = F.parseField(field('tp'), '');
assert.strictEqual(r0.ok, true);
assert.strictEqual(r0.value, undefined);
let r = F.parseField(field('tp'), 'abc');
assert.strictEqual(r.ok, false);
assert.strictEqual(r.error, "'abc' is not a whole number; allowed 1..4,096");
r = F.parseField(field('tp'), '8.5');
assert.strictEqual(r.ok, false);
r = F.parseField(field('tp'), '0');
assert.strictEqual(r.error, '0 is out of range; allowed 1..4,096');
r = F.parseField({ kind: 'int', min: 1, max: 1048576 }, '-5');
assert.strictEqual(r.error, '-5 is out of range; allowed 1..1,048,576');
assert.strictEqual(F.parseField(field('cpu-offload-layers'), '0').value, 0);
// The in-flight offload cap takes 0 (join after every offload) up to 1,024.
assert.strictEqual(F.parseField(field('fine-grained-offloading-max-inflight-offloads'), '0').value, 0);
assert.strictEqual(F.parseField(field('fine-grained-offloading-max-inflight-offloads'), '1025').error,
  '1025 is out of range; allowed 0..1,024');

// Hierarchical CP sizes: a comma list of whole numbers, each 1..4,096.
assert.deepStrictEqual(plain(F.parseField(field('hierarchical-context-parallel-sizes'), '2, 2').value), [2, 2]);
assert.strictEqual(F.parseField(field('hierarchical-context-parallel-sizes'), '2,0').error,
  '0 is out of range; allowed 1..4,096');
assert.strictEqual(F.parseField(field('hierarchical-context-parallel-sizes'), '2,x').error,
  "'x' is not a whole number; allowed comma-separated 1..4,096");
// The CP type is one of Megatron's four; the offload fraction a share in [0, 1].
assert.strictEqual(F.parseField(field('cp-comm-type'), 'A2A+P2P').value, 'a2a+p2p');
assert.ok(F.parseField(field('cp-comm-type'), 'ring').error.endsWith('allowed p2p, all_gather, a2a, a2a+p2p'));
assert.strictEqual(F.parseField(field('optimizer-offload-fraction'), '0').value, 0);
assert.strictEqual(F.parseField(field('optimizer-offload-fraction'), '1').value, 1);
assert.strictEqual(F.parseField(field('optimizer-offload-fraction'), '1.5').error, '1.5 is out of range; allowed [0, 1]');
assert.strictEqual(F.parseField(field('optimizer-cpu-offload'), 'on').value, true);

// Decimals: open or closed lower bounds.
assert.strictEqual(F.parseField(field('hbm-gib'), '141.5').value, 141.5);
assert.strictEqual(F.parseField(field('hbm-gib'), '0').error, '0 is out of range; allowed (0, 16,384]');
assert.strictEqual(F.parseField(field('fp8-tflops'), '0').value, 0);
assert.strictEqual(F.parseField(field('hbm-gib'), '1e2').value, 100);
assert.strictEqual(F.parseField(field('hbm-gib'), 'NaN').ok, false);
assert.strictEqual(F.parseField(field('hbm-gib'), 'Infinity').ok, false);

// Enums (case-insensitive), booleans, lists.
assert.strictEqual(F.parseField(field('precision'), 'FP8-CS').value, 'fp8-cs');
assert.strictEqual(F.parseField(field('precision'), 'fp16').error,
  "'fp16' is not allowed; allowed bf16, fp8-cs, fp8-mx, fp8-sc, fp8-ds, nvfp4");
for (const t of ['true', '1', 'on', 'yes']) assert.strictEqual(F.parseField(field('fsdp'), t).value, true, t);
for (const t of ['false', '0', 'off', 'no']) assert.strictEqual(F.parseField(field('fsdp'), t).value, false, t);
assert.strictEqual(F.parseField(field('fsdp'), 'maybe').error, "'maybe' is not a boolean; allowed true, false");
assert.deepStrictEqual(plain(F.parseField(field('recompute-modules'), 'mlp, moe_act').value), ['mlp', 'moe_act']);
assert.ok(F.parseField(field('recompute-modules'), 'mlp,attn').error.startsWith("'attn' not allowed; allowed core_attn"));
assert.strictEqual(F.parseField(field('pp-layout'), 'x'.repeat(65537)).error, 'longer than 65,536 characters');

// The request JSON under proto names; grad-dtype maps to grad_reduce_in_fp32.
assert.deepStrictEqual(
  plain(F.buildConfig({ tp: 8, seq: 4096, 'grad-dtype': 'bf16', 'recompute-modules': ['mlp'], mbs: undefined })),
  { tp: 8, seq_length: 4096, grad_reduce_in_fp32: false, recompute_modules: ['mlp'] });
assert.deepStrictEqual(
  plain(F.buildConfig({ cp: 4, 'cp-comm-type': 'a2a+p2p', 'hierarchical-context-parallel-sizes': [2, 2],
    'optimizer-cpu-offload': true, 'optimizer-offload-fraction': 0.5 })),
  { cp: 4, cp_comm_type: 'a2a+p2p', hierarchical_context_parallel_sizes: [2, 2], optimizer_cpu_offload: true,
    optimizer_offload_fraction: 0.5 });
assert.deepStrictEqual(plain(F.buildSystemSpec({ 'gpu-arch': 'hopper', 'hbm-gib': 40, 'nvlink-domain': 4, 'gpus-per-node': 4 })),
  { gpu_arch: 'hopper', hbm_gib: 40, gpus_per_node: 4, nvlink_domain_size: 4 });

// A pasted model.
const hf = '{"model_type": "llama", "num_hidden_layers": 2}';
assert.deepStrictEqual(plain(F.modelRef(hf).ref), { hf_config_json: hf });
assert.deepStrictEqual(plain(F.modelRef('{"num_layers": 2, "hidden_size": 64}').ref),
  { spec: { num_layers: 2, hidden_size: 64 } });
assert.strictEqual(F.modelRef('').ok, false);
assert.ok(F.modelRef('{nope').error.startsWith('not valid JSON'));
assert.strictEqual(F.modelRef('[1]').error, 'not a JSON object');

console.log('web fields: ' + keys.size + ' fields, parsing and request JSON ok');
