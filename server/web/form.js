// parplan's web page, the form: the mode (recommend | check), the model and
// system lists from ListModels / ListSystems, the check-mode config fields
// and the custom-system fields built from fields.js, the placement field
// (GPUs per NVLink domain), reading and checking every input into a request,
// and each field's error shown beside it.
//
// window.ParplanForm = {
//   CUSTOM                  -> the select value of "custom model" / "custom system"
//   mode() / setMode(mode)  -> "recommend" | "check"
//   build()                 -> builds the config and system inputs (once, at start)
//   fillModels(models), fillSystems(systems), systemPlaceholders()
//   systemOf(id)            -> the ListSystems entry for id, or null
//   fieldOf(key)            -> the fields.js definition for a URL / form key, or null
//   inputOf(key)            -> the input holding key (gpus, seq, precision, objective,
//                              gpus-per-domain, model-json, a config or system field)
//   selectValue(select, v)  -> selects v, adding an option for a value not listed
//   readForm()              -> {errors: {key: message}, request: {model, placement, config}, gpus}
//   showFieldErrors(errors) -> marks the fields, summarises in #error; true when any
//   SYSTEM_KEYS             -> {key: true} for the custom-system fields
// }
'use strict';

(function () {
  const GiB = 1073741824;
  const $ = (id) => document.getElementById(id);
  const F = window.ParplanFields;
  const { el } = window.ParplanFormat;
  const CUSTOM = '__custom__';
  const SYSTEM_KEYS = Object.fromEntries(F.SYSTEM_FIELDS.map((f) => [f.key, true]));
  // The main row's inputs, by key.
  const MAIN = { gpus: 'gpus', seq: 'seq', precision: 'precision', objective: 'objective', 'gpus-per-domain': 'gpus-per-domain', 'model-json': 'model-json' };
  let mode = 'recommend';
  let systems = [];

  function fieldOf(key) {
    return F.CONFIG_FIELDS.find((f) => f.key === key) || F.SYSTEM_FIELDS.find((f) => f.key === key) ||
      F.PLACEMENT_FIELDS.find((f) => f.key === key) || null;
  }

  function inputOf(key) {
    if (MAIN[key]) return $(MAIN[key]);
    return $('f-' + key) || $('s-' + key);
  }

  // The default in a field's help, short: "[none]" -> "none", "[on: Bridge's]"
  // -> "on"; a long one stays in the tooltip.
  function shortDefault(f) {
    const bracket = /\[([^\]]*)\]/.exec(f.help || '');
    if (!bracket) return { has: false, text: '' };
    const text = bracket[1].split(':')[0].trim();
    return { has: true, text: text.length <= 12 ? text : '' };
  }

  // An input (or a select for enum and bool fields) for field `f`, id `prefix + key`.
  function fieldInput(f, prefix) {
    const wrap = el('div', 'field');
    const label = el('label', '', f.label);
    label.htmlFor = prefix + f.key;
    wrap.appendChild(label);
    const def = shortDefault(f);
    let input;
    if (f.kind === 'enum' || f.kind === 'bool') {
      input = document.createElement('select');
      const first = el('option', '', def.text ? 'default: ' + def.text : 'default');
      first.value = '';
      input.appendChild(first);
      for (const o of f.kind === 'bool' ? ['true', 'false'] : f.options) {
        const opt = el('option', '', f.kind === 'bool' ? (o === 'true' ? 'on' : 'off') : o);
        opt.value = o;
        input.appendChild(opt);
      }
    } else {
      input = document.createElement('input');
      input.type = 'text';
      if (f.kind === 'int') input.inputMode = 'numeric';
      if (f.kind === 'number') input.inputMode = 'decimal';
      input.placeholder = def.text || (def.has ? 'default' : '');
    }
    input.id = prefix + f.key;
    input.dataset.key = f.key;
    input.title = f.key + (f.help ? ': ' + f.help : '');
    wrap.appendChild(input);
    const err = el('small', 'field-error');
    err.dataset.for = f.key;
    err.hidden = true;
    wrap.appendChild(err);
    return wrap;
  }

  // Builds the check-mode config fields (grouped) and the custom system fields.
  function build() {
    const groups = new Map();
    for (const f of F.CONFIG_FIELDS) {
      if (f.key === 'seq' || f.key === 'precision') continue;  // the main row's
      if (!groups.has(f.group)) groups.set(f.group, []);
      groups.get(f.group).push(f);
    }
    $('check-fields').textContent = '';
    for (const [name, fields] of groups) {
      const set = el('fieldset', 'field-group');
      set.appendChild(el('legend', '', name));
      for (const f of fields) set.appendChild(fieldInput(f, 'f-'));
      $('check-fields').appendChild(set);
    }
    $('system-fields').textContent = '';
    for (const f of F.SYSTEM_FIELDS) $('system-fields').appendChild(fieldInput(f, 's-'));
    $('gpus-per-domain').title = 'gpus-per-domain: ' + F.PLACEMENT_FIELDS[0].help;
  }

  function setMode(next) {
    mode = next === 'check' ? 'check' : 'recommend';
    const check = mode === 'check';
    $('mode-recommend').setAttribute('aria-pressed', String(!check));
    $('mode-check').setAttribute('aria-pressed', String(check));
    for (const e of document.querySelectorAll('.check-only')) e.hidden = !check;
    for (const e of document.querySelectorAll('.recommend-only')) e.hidden = check;
    $('plan-button').textContent = check ? 'Check' : 'Plan';
    $('gpus').placeholder = check ? 'smallest valid world' : 'fewest that fit';
    $('mode-help').textContent = check
      ? 'Enter your own parallelism; empty fields take the default in brackets.'
      : 'The best Megatron parallelism plans for a model on a system.';
  }

  // Fills the model select, grouped by kind; incomplete models are listed but disabled.
  function fillModels(models) {
    const groups = new Map();
    for (const m of models) {
      const kind = m.kind || 'other';
      if (!groups.has(kind)) groups.set(kind, []);
      groups.get(kind).push(m);
    }
    const select = $('model');
    select.textContent = '';
    for (const [kind, list] of groups) {
      const group = document.createElement('optgroup');
      group.label = kind;
      for (const m of list) {
        const opt = el('option', '', (m.name || m.id) + ' (' + m.id + ')' + (m.complete ? '' : ' (incomplete)'));
        opt.value = m.id;
        opt.disabled = !m.complete;
        if (!m.complete && m.missing_fields && m.missing_fields.length) opt.title = 'missing: ' + m.missing_fields.join(', ');
        group.appendChild(opt);
      }
      select.appendChild(group);
    }
    const custom = el('option', '', 'custom model (pasted below)');
    custom.value = CUSTOM;
    select.appendChild(custom);
    const first = models.find((m) => m.complete && m.id === 'llama3_70b') || models.find((m) => m.complete);
    if (first) select.value = first.id;
  }

  // Fills the system select: "id: name · N GPUs/node, HBM"; keeps the list for placeholders.
  function fillSystems(list) {
    systems = list;
    const select = $('system');
    select.textContent = '';
    for (const s of list) {
      const extra = [];
      if (s.gpus_per_node) extra.push(s.gpus_per_node + ' GPUs/node');
      if (s.nvlink_domain_size && s.nvlink_domain_size !== s.gpus_per_node) extra.push('NVLink domain ' + s.nvlink_domain_size);
      if (s.hbm_gb) extra.push(s.hbm_gb + ' GB');
      const opt = el('option', '', s.id + ': ' + (s.name || s.id) + (extra.length ? ' · ' + extra.join(', ') : ''));
      opt.value = s.id;
      select.appendChild(opt);
    }
    const custom = el('option', '', 'custom system (no base; fields below)');
    custom.value = CUSTOM;
    select.appendChild(custom);
    if (list.some((s) => s.id === 'h100-sxm')) select.value = 'h100-sxm';
    systemPlaceholders();
  }

  const systemOf = (id) => systems.find((x) => x.id === id) || null;

  // The custom-system inputs' placeholders show the selected system's
  // figures; the placement field its NVLink domain.
  function systemPlaceholders() {
    // Without a base, figures not given come from the architecture's reference system.
    const reference = { ampere: 'a100-80gb', hopper: 'h100-sxm', blackwell: 'b200' };
    const archInput = $('s-gpu-arch');
    const id = $('system').value === CUSTOM ? reference[archInput && archInput.value] : $('system').value;
    const s = systemOf(id);
    const base = {
      'gpu-arch': s && s.gpu_arch,
      'hbm-gib': s && s.hbm_gb ? (s.hbm_gb * 1e9 / GiB).toFixed(1) : '',
      'hbm-tbps': s && s.hbm_bw_tbps,
      'bf16-tflops': s && s.bf16_dense_tflops,
      'fp8-tflops': s && s.fp8_dense_tflops,
      'fp4-tflops': s && s.fp4_dense_tflops,
      'gpus-per-node': s && s.gpus_per_node,
      'nvlink-domain': s && s.nvlink_domain_size,
      'nvlink-gbps': s && s.nvlink_gbps_unidirectional ? s.nvlink_gbps_unidirectional * 2 : '',
      'scaleout-gbps': s && s.scaleout_gbps_per_gpu,
      'pcie-gbps': s && s.pcie_gbps_unidirectional,
    };
    for (const f of F.SYSTEM_FIELDS) {
      const input = $('s-' + f.key);
      if (!input || input.tagName === 'SELECT') continue;
      const v = base[f.key];
      input.placeholder = v ? String(v) + (s ? ' (' + s.id + ')' : '') : f.help || '';
    }
    const domain = $('s-nvlink-domain').value.trim() || (s && s.nvlink_domain_size);
    $('gpus-per-domain').placeholder = domain ? 'even split of ' + domain : 'even split';
  }

  // Selects `value` in `select`, adding an option for it when it is not listed
  // (a URL may name an alias or a Hugging Face id the server resolves).
  function selectValue(select, value) {
    if (!value) return;
    const options = Array.from(select.options);
    const match = options.find((o) => o.value === value) ||
      options.find((o) => o.value.toLowerCase().replace(/-/g, '_') === value.toLowerCase().replace(/-/g, '_'));
    if (match) {
      select.value = match.value;
      return;
    }
    const opt = el('option', '', value);
    opt.value = value;
    select.insertBefore(opt, select.firstChild);
    select.value = value;
  }

  // Reads and checks the whole form. request is {model, placement, config}
  // (config: every field given in check mode; seq and precision in both).
  function readForm() {
    const errors = {};
    const values = {};
    const check = mode === 'check';
    const gpus = F.parseField({ kind: 'int', min: 1, max: 1048576 }, $('gpus').value);
    if (!gpus.ok) errors.gpus = gpus.error;
    const perDomain = F.parseField(fieldOf('gpus-per-domain'), $('gpus-per-domain').value);
    if (!perDomain.ok) errors['gpus-per-domain'] = perDomain.error;
    for (const key of ['seq', 'precision']) {
      const r = F.parseField(fieldOf(key), inputOf(key).value);
      if (!r.ok) errors[key] = r.error;
      else values[key] = r.value;
    }
    if (!['throughput', 'fewest-gpus', 'headroom'].includes($('objective').value)) {
      errors.objective = "'" + $('objective').value + "' is not an objective; allowed throughput, fewest-gpus, headroom";
    }
    for (const f of F.CONFIG_FIELDS) {
      if (f.key === 'seq' || f.key === 'precision') continue;
      const input = $('f-' + f.key);
      const r = F.parseField(f, input ? input.value : '');
      if (!r.ok) errors[f.key] = r.error;
      else if (check) values[f.key] = r.value;
    }
    const systemValues = {};
    for (const f of F.SYSTEM_FIELDS) {
      const r = F.parseField(f, $('s-' + f.key).value);
      if (!r.ok) errors[f.key] = r.error;
      else systemValues[f.key] = r.value;
    }
    let model = { id: $('model').value };
    if ($('model').value === CUSTOM) {
      const m = F.modelRef($('model-json').value);
      if (!m.ok) errors['model-json'] = m.error;
      else model = m.ref;
    }
    const placement = {};
    if ($('system').value !== CUSTOM) placement.system = $('system').value;
    const spec = F.buildSystemSpec(systemValues);
    if (Object.keys(spec).length) placement.system_spec = spec;
    if ($('system').value === CUSTOM && !spec.gpu_arch) {
      errors['gpu-arch'] = 'a custom system without a base needs its GPU architecture (ampere, hopper or blackwell)';
    }
    if (gpus.ok && gpus.value !== undefined) placement.gpus = gpus.value;
    // 0 (or empty) leaves it to parplan: the even split on rack systems.
    if (perDomain.ok && perDomain.value > 0) placement.gpus_per_nvlink_domain = perDomain.value;
    return { errors, request: { model, placement, config: F.buildConfig(values) }, gpus: gpus.value };
  }

  // Shows `message` under the field `key` (or clears it when empty).
  function setFieldError(key, message) {
    const err = document.querySelector('.field-error[data-for="' + key + '"]');
    const input = inputOf(key) || (key === 'model' ? $('model') : key === 'system' ? $('system') : null);
    if (err) {
      err.textContent = message || '';
      err.hidden = !message;
    }
    if (input) input.classList.toggle('invalid', !!message);
    if (message && SYSTEM_KEYS[key]) $('custom-system').open = true;
    if (message && key === 'model-json') $('custom-model').open = true;
  }

  function clearFieldErrors() {
    for (const e of document.querySelectorAll('.field-error')) {
      e.hidden = true;
      e.textContent = '';
    }
    for (const e of document.querySelectorAll('.invalid, .rule-error')) e.classList.remove('invalid', 'rule-error');
  }

  // Shows `errors` beside their fields ("url:KEY" ones only in the summary)
  // and a summary in #error; true when there were any.
  function showFieldErrors(errors) {
    clearFieldErrors();
    const keys = Object.keys(errors);
    if (!keys.length) return false;
    const err = new Error('fix the marked field' + (keys.length === 1 ? '' : 's') + ' (nothing was sent)');
    err.code = 'INVALID_INPUT';
    err.violations = [];
    for (const key of keys) {
      if (key.startsWith('url:')) {
        err.violations.push({ field: key.slice(4), description: errors[key] });
      } else {
        setFieldError(key, errors[key]);
        err.violations.push({ field: key, description: errors[key] });
      }
    }
    window.ParplanStatus.showError(err, 'Input');
    return true;
  }

  window.ParplanForm = {
    CUSTOM, SYSTEM_KEYS, mode: () => mode, setMode, build, fillModels, fillSystems, systemPlaceholders, systemOf,
    fieldOf, inputOf, selectValue, readForm, showFieldErrors,
  };
})();
