// Tests of the web page's plan facts (server/web/plan_facts.js) under Node,
// no browser: cp_comm_type shown only for CP > 1 and "p2p (default)" when the
// config leaves it unset, a plan's warnings picked from its violations, the
// nearest-valid-split note, the effect badges (none for execution-only
// settings; the benchmark one says it changes what training does), the
// resolved settings grouped by source in a fixed order, and nothing for
// answers without these fields.
//   node web_plan_facts_test.js PATH/server/web/plan_facts.js
'use strict';

const assert = require('assert');
const P = require('./web_script.js')(process.argv[2], 'ParplanFacts');
const plain = (x) => JSON.parse(JSON.stringify(x));

// cp_comm_type: only when CP > 1; Megatron's default p2p named as such; int64-as-string sizes.
assert.strictEqual(P.cpCommType({ cp: 1, cp_comm_type: 'a2a' }), '');
assert.strictEqual(P.cpCommType({}), '');
assert.strictEqual(P.cpCommType(undefined), '');
assert.strictEqual(P.cpCommType({ cp: 8 }), 'p2p (default)');
assert.strictEqual(P.cpCommType({ cp: '4', cp_comm_type: '' }), 'p2p (default)');
assert.strictEqual(P.cpCommType({ cp: 32, cp_comm_type: 'a2a+p2p' }), 'a2a+p2p');

// Warnings: severity "warning" only, in the answer's order.
const plan = {
  violations: [
    { rule: 'a.error', severity: 'error' },
    { rule: 'seq.beyond_native_context', severity: 'warning', message: 'm1' },
    { rule: 'x.info', severity: 'info' },
    { rule: 'topology.cp_crosses_nvlink', severity: 'warning', message: 'm2' },
  ],
};
assert.deepStrictEqual(P.warnings(plan).map((v) => v.rule), ['seq.beyond_native_context', 'topology.cp_crosses_nvlink']);
assert.deepStrictEqual(plain(P.warnings({})), []);
assert.deepStrictEqual(plain(P.warnings(null)), []);

// The nearest valid split.
assert.strictEqual(P.splitNote(null), '');
assert.strictEqual(P.splitNote({ change: 'account_for_loss_in_pipeline_split = true' }),
  'computed for the nearest valid split (account_for_loss_in_pipeline_split = true)');
assert.strictEqual(P.splitNote({}), 'computed for the nearest valid split');

// Effect badges.
assert.strictEqual(P.effectBadge('execution'), '');
assert.strictEqual(P.effectBadge(''), '');
assert.strictEqual(P.effectBadge(undefined), '');
assert.strictEqual(P.effectBadge('benchmark'), 'benchmark only: changes what training does');
assert.strictEqual(P.effectBadge('benchmark', 'true'), 'benchmark only: changes what training does');
assert.strictEqual(P.effectBadge('benchmark', 'false'), 'benchmark setting (off)');
assert.ok(P.effectBadge('numerics').startsWith('numerics'));
assert.ok(P.effectBadge('semantics').startsWith('semantics'));
assert.strictEqual(P.effectBadge('future_class'), 'future_class');

// Resolved settings: grouped by source in SOURCE_ORDER, unknown sources last, badges set.
const resolved = [
  { field: 'etp', value: '1', source: 'bridge_default', effect: 'execution', why: 'Megatron Bridge 0.6.0 default' },
  { field: 'moe_router_force_load_balancing', value: 'true', source: 'user', effect: 'benchmark', why: 'given' },
  { field: 'placement.gpus_per_nvlink_domain', value: '64', source: 'parplan', effect: 'execution', why: 'even split' },
  { field: 'gbs', value: '1024', source: 'parplan', effect: 'semantics', why: 'about 4M tokens' },
  { field: 'fp8_param_gather', value: 'false', source: 'bridge_default', effect: 'numerics' },
  { field: 'odd', value: 'x', source: 'somewhere_new', effect: 'execution' },
  { value: 'no field' },
];
const groups = plain(P.resolvedGroups(resolved));
assert.deepStrictEqual(groups.map((g) => g.source), ['user', 'parplan', 'bridge_default', 'somewhere_new']);
assert.deepStrictEqual(groups.map((g) => g.label), ['given', 'chosen by parplan', 'Megatron Bridge default', 'somewhere_new']);
assert.deepStrictEqual(groups[0].items, [{ field: 'moe_router_force_load_balancing', value: 'true', why: 'given',
  effect: 'benchmark', badge: 'benchmark only: changes what training does' }]);
assert.deepStrictEqual(groups[1].items.map((i) => [i.field, i.badge !== '']),
  [['placement.gpus_per_nvlink_domain', false], ['gbs', true]]);
assert.deepStrictEqual(groups[2].items.map((i) => i.field), ['etp', 'fp8_param_gather']);
assert.strictEqual(groups[2].items[1].why, '');
// Absent or empty: nothing to draw.
assert.deepStrictEqual(plain(P.resolvedGroups(undefined)), []);
assert.deepStrictEqual(plain(P.resolvedGroups([])), []);
assert.deepStrictEqual(plain(P.resolvedGroups('nope')), []);

// Placement.
assert.strictEqual(P.placementText({ gpus_per_nvlink_domain: 64 }, 72), '64 of 72 GPUs per NVLink domain');
assert.strictEqual(P.placementText({ gpus_per_nvlink_domain: 8 }), '8 GPUs per NVLink domain');
assert.strictEqual(P.placementText({ gpus_per_nvlink_domain: 0 }, 72), '');
assert.strictEqual(P.placementText(undefined, 72), '');

console.log('web plan facts: cp_comm_type, warnings, split note, effect badges, resolved groups, placement ok');
