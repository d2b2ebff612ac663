// parplan's web page, the address bar: URL parameters fill the form under
// the CLI's flag names (model, system, gpus, gpus-per-domain, seq, tp, pp,
// hbm-gib, ...; run=1 runs at once, plan=N draws plan N, groups=tp|cp|ep|dp|pp
// colours the rank map), a bad value is kept in its field with the error
// beside it, and the form is mirrored back into the URL so a page can be
// shared or reloaded.
//
// window.ParplanUrl = {
//   apply()          -> {run, plan (0-based), errors}: fills the form from location.search
//   params()         -> URLSearchParams of the form (run=1)
//   configUrl(config)-> URLSearchParams that check `config` (a ParallelConfig answer)
//   update()         -> replaces the address bar with params()
// }
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const F = window.ParplanFields;
  const Form = window.ParplanForm;
  const GROUPS = ['', 'tp', 'cp', 'ep', 'dp', 'pp'];
  // URL keys the page reads besides the config and system fields.
  const PAGE_KEYS = ['mode', 'model', 'system', 'gpus', 'gpus-per-domain', 'seq', 'seq_length', 'precision', 'objective',
    'plan', 'run', 'groups', 'model-json'];

  // Puts the raw `text` into the input for `key` so that the box shows what
  // the URL said (a select gets an option for an unknown value).
  function putRaw(key, text) {
    const input = Form.inputOf(key);
    if (!input) return;
    if (input.tagName === 'SELECT') {
      const v = String(text).toLowerCase();
      const known = Array.from(input.options).find((o) => o.value === v ||
        (v === 'on' || v === '1') && o.value === 'true' || (v === 'off' || v === '0') && o.value === 'false');
      if (known) input.value = known.value;
      else Form.selectValue(input, String(text));
    } else {
      input.defaultValue = text;  // also in the serialised DOM (headless tests)
      input.value = text;
    }
  }

  function apply() {
    const p = new URLSearchParams(window.location.search);
    const errors = {};
    Form.setMode(p.get('mode') === 'check' ? 'check' : 'recommend');
    if (p.has('mode') && !['check', 'recommend'].includes(p.get('mode'))) {
      errors['url:mode'] = "'" + p.get('mode') + "' is not a mode; allowed recommend, check";
    }
    const model = p.get('model');
    if (model === 'custom' || (!model && p.has('model-json'))) $('model').value = Form.CUSTOM;
    else Form.selectValue($('model'), model);
    if (p.has('model-json')) {
      $('model-json').value = p.get('model-json');
      $('custom-model').open = true;
    }
    const system = p.get('system');
    if (system === 'custom') $('system').value = Form.CUSTOM;
    else Form.selectValue($('system'), system);
    for (const key of ['gpus', 'gpus-per-domain']) if (p.has(key)) putRaw(key, p.get(key));
    const seq = p.get('seq') || p.get('seq_length');
    if (seq) putRaw('seq', seq);
    if (p.get('precision')) Form.selectValue($('precision'), p.get('precision'));
    if (p.get('objective')) Form.selectValue($('objective'), p.get('objective'));
    if (p.get('groups') !== null) {
      if (GROUPS.includes(p.get('groups'))) $('groups').value = p.get('groups');
      else errors['url:groups'] = "'" + p.get('groups') + "' is not a group kind; allowed tp, cp, ep, dp, pp";
    }
    for (const [key, value] of p.entries()) {
      if (PAGE_KEYS.includes(key)) continue;
      if (!Form.fieldOf(key)) {
        errors['url:' + key] = "unknown URL parameter '" + key + "'";
        continue;
      }
      putRaw(key, value);
      if (Form.SYSTEM_KEYS[key]) $('custom-system').open = true;
    }
    const plan = parseInt(p.get('plan') || '1', 10);
    Object.assign(errors, Form.readForm().errors);
    return { run: p.get('run') === '1' || p.get('run') === 'true', plan: plan > 0 ? plan - 1 : 0, errors };
  }

  function params() {
    const p = new URLSearchParams();
    const check = Form.mode() === 'check';
    const value = (id) => $(id).value.trim();
    if (check) p.set('mode', 'check');
    p.set('model', $('model').value === Form.CUSTOM ? 'custom' : $('model').value);
    if ($('model').value === Form.CUSTOM) p.set('model-json', value('model-json'));
    p.set('system', $('system').value === Form.CUSTOM ? 'custom' : $('system').value);
    for (const key of ['gpus', 'gpus-per-domain', 'seq', 'precision']) if (value(key)) p.set(key, value(key));
    if (!check && $('objective').value !== 'throughput') p.set('objective', $('objective').value);
    if (check) {
      for (const f of F.CONFIG_FIELDS) {
        const input = $('f-' + f.key);
        if (input && input.value.trim()) p.set(f.key, input.value.trim());
      }
    }
    for (const f of F.SYSTEM_FIELDS) if (value('s-' + f.key)) p.set(f.key, value('s-' + f.key));
    if ($('groups').value) p.set('groups', $('groups').value);
    p.set('run', '1');
    return p;
  }

  function configUrl(config) {
    const p = params();
    for (const f of F.CONFIG_FIELDS) p.delete(f.key);
    p.set('mode', 'check');
    for (const f of F.CONFIG_FIELDS) {
      let v = config[f.json];
      if (v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length)) continue;
      if (f.key === 'grad-dtype') v = v ? 'fp32' : 'bf16';
      p.set(f.key, Array.isArray(v) ? v.join(',') : String(v));
    }
    p.set('run', '1');
    return p;
  }

  function update() {
    try {
      window.history.replaceState(null, '', '?' + params().toString());
    } catch (e) {
      // file:// or a sandbox: not worth failing over.
    }
  }

  window.ParplanUrl = { apply, params, configUrl, update };
})();
