// parplan's web page, what a plan says about itself, as text: its CP
// communication type, its warnings, the nearest valid split an estimate was
// computed for, and its resolved settings grouped by source with a badge for
// each setting that changes more than how the step runs. Pure functions over
// the API's JSON, no DOM: the renderers (plans.js, rules.js, resolved.js)
// and the Node test (tests/server/web_plan_facts_test.js) share them.
//
// window.ParplanFacts = {
//   cpCommType(config)     -> "" when CP <= 1, else config.cp_comm_type or "p2p (default)"
//   warnings(plan)         -> the plan's violations with severity "warning"
//   splitNote(repair)      -> "computed for the nearest valid split (<change>)", "" without one
//   effectBadge(effect, value) -> "" for "execution" (or none), else the badge text
//   sourceLabel(source)    -> "given", "Megatron Bridge default", ... (the source itself when unknown)
//   resolvedGroups(list)   -> [{source, label, items: [{field, value, why, effect, badge}]}]
//                             in SOURCE_ORDER, empty groups left out; [] for a missing list
//   placementText(p, size) -> "64 of 72 GPUs per NVLink domain" (size: the system's domain),
//                             "" without p.gpus_per_nvlink_domain
//   SOURCE_ORDER           -> the order of the sources in resolvedGroups
// }
'use strict';

(function () {
  const num = (v) => (v === undefined || v === null || v === '' ? NaN : Number(v));

  // Megatron's default when the config leaves cp_comm_type unset is p2p
  // (megatron/core/transformer/transformer_config.py).
  function cpCommType(config) {
    const c = config || {};
    if (!(num(c.cp) > 1)) return '';
    return c.cp_comm_type ? String(c.cp_comm_type) : 'p2p (default)';
  }

  function warnings(plan) {
    const list = (plan && plan.violations) || [];
    return list.filter((v) => v && v.severity === 'warning');
  }

  function splitNote(repair) {
    if (!repair) return '';
    return 'computed for the nearest valid split' + (repair.change ? ' (' + repair.change + ')' : '');
  }

  // What a setting of each effect class changes (issue 33: execution-only
  // settings keep the math; the others do not).
  const EFFECTS = {
    numerics: 'numerics: changes the arithmetic',
    semantics: 'semantics: changes what is trained',
    benchmark: 'benchmark only: changes what training does',
  };

  function effectBadge(effect, value) {
    if (!effect || effect === 'execution') return '';
    // A benchmark-only switch that is off changes nothing: named, not alarmed.
    if (effect === 'benchmark' && value === 'false') return 'benchmark setting (off)';
    return EFFECTS[effect] || String(effect);
  }

  const SOURCE_ORDER = ['user', 'parplan', 'bridge_default', 'megatron_core_default', 'megatron_lm_default', 'model', 'system'];
  const SOURCES = {
    user: 'given',
    parplan: 'chosen by parplan',
    bridge_default: 'Megatron Bridge default',
    megatron_core_default: 'Megatron-Core default',
    megatron_lm_default: 'Megatron-LM default',
    model: 'from the model',
    system: 'from the system',
  };

  function sourceLabel(source) {
    return SOURCES[source] || String(source || 'unknown source');
  }

  function resolvedGroups(list) {
    if (!Array.isArray(list) || !list.length) return [];
    const groups = new Map();
    for (const s of list) {
      if (!s || !s.field) continue;
      const source = s.source || '';
      if (!groups.has(source)) groups.set(source, []);
      groups.get(source).push({
        field: String(s.field),
        value: s.value === undefined || s.value === null ? '' : String(s.value),
        why: s.why || '',
        effect: s.effect || '',
        badge: effectBadge(s.effect, s.value === undefined || s.value === null ? '' : String(s.value)),
      });
    }
    const rank = (source) => {
      const i = SOURCE_ORDER.indexOf(source);
      return i < 0 ? SOURCE_ORDER.length : i;
    };
    return Array.from(groups.keys())
      .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
      .map((source) => ({ source, label: sourceLabel(source), items: groups.get(source) }));
  }

  // The placement a plan carries (PlanSummary.placement) or a request's, with
  // the system's domain size when known.
  function placementText(placement, domainSize) {
    const used = num(placement && placement.gpus_per_nvlink_domain);
    if (!(used > 0)) return '';
    return used + (num(domainSize) > 0 ? ' of ' + num(domainSize) : '') + ' GPUs per NVLink domain';
  }

  window.ParplanFacts = { cpCommType, warnings, splitNote, effectBadge, sourceLabel, resolvedGroups, placementText, SOURCE_ORDER };
})();
