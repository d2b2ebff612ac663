// parplan's web page, the conductor: loads the model and system lists, runs
// the form, in "recommend" mode asks /v1/Recommend for plans (plans.js draws
// the table) or in "check" mode sends the user's config to /v1/Validate,
// /v1/EstimateMemory and /v1/EstimatePerformance (check.js draws the
// answer), then draws the selected plan from /plot (pictures.js) with its
// warnings, cp_comm_type and resolved plan. A plan the server refuses to draw
// shows its rule cards (rules.js), not an error banner. The other files:
// format.js (numbers), fields.js (field table), plan_facts.js (plan facts as
// text), api.js (HTTP), status.js (page state), form.js (inputs), url.js
// (address bar), resolved.js; paste.js and compare.js (the "Start from what
// you run" panel: ImportConfig, CompareRun), which Recommend through
// window.ParplanApp.recommend(req). Plain ES2017, no dependencies, no build step.
//
// document.body.dataset.state (mirrored on #status) is "loading" while a
// request is in flight, "done" when everything asked for is drawn, and
// "error" after a failure, so headless tests can wait for the page.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const { num, el } = window.ParplanFormat;
  const { post } = window.ParplanApi;
  const { setState, showError, clearError } = window.ParplanStatus;
  const Form = window.ParplanForm;
  const Url = window.ParplanUrl;
  const Plans = window.ParplanPlans;
  const Facts = window.ParplanFacts;

  // What the page currently shows.
  const state = {
    request: null,   // the last request sent ({model, placement, config})
    answer: null,    // the last Recommend answer
    plans: [],       // its plans (check mode: the one config checked)
    startingPoint: null,  // the answer's rule-of-thumb plan (table index -1)
    repair: null,    // check mode: the nearest valid split the estimates are for
    selected: -2,    // index into plans; -1 = the starting point
    plotSeq: 0,      // increases with each /plot request; stale answers are dropped
    planSeq: 0,      // the same for /v1/Recommend and the check
    firstPlan: 0,    // the plan drawn after a Recommend (URL ?plan=N, 1-based)
  };

  const onSelect = (i) => selectPlan(i);

  // Runs the form: Recommend or Check.
  async function run() {
    clearError();
    const form = Form.readForm();
    if (Form.showFieldErrors(form.errors)) return;
    state.request = form.request;
    Url.update();
    if (Form.mode() === 'check') await runCheck(form);
    else await runPlan(form);
  }

  // Recommend, then draws plan 1 (or the URL's plan).
  async function runPlan(form) {
    const req = {
      model: form.request.model,
      placement: form.request.placement,
      objective: $('objective').value || 'throughput',
      top_k: 5,
    };
    if (form.gpus === undefined) req.find_min_gpus = true;
    const config = {};
    if (form.request.config.seq_length) config.seq_length = form.request.config.seq_length;
    if (form.request.config.precision) config.precision = form.request.config.precision;
    if (Object.keys(config).length) req.config = config;
    await recommend(req);
  }

  // Sends a RecommendRequest (the form's, or paste.js's with `current`) and
  // draws its plans; resolves when plan 1 (or the URL's plan) is drawn, with
  // the ApiError when the server refused (also shown in #error), else null.
  async function recommend(req) {
    if (Form.mode() !== 'recommend') Form.setMode('recommend');
    const seq = ++state.planSeq;
    state.plotSeq++;  // drop any drawing still on its way
    state.request = req;
    state.repair = null;
    setState('loading', 'Searching plans…');
    $('plan-detail').hidden = true;
    $('check-results').hidden = true;
    let answer;
    try {
      answer = await post('/v1/Recommend', req);
    } catch (e) {
      if (seq === state.planSeq) showError(e, 'Recommend');
      return e;
    }
    if (seq !== state.planSeq) return null;
    Plans.show(state, answer, onSelect);
    const uncertainty = Plans.fetchUncertainty(state, req, seq, onSelect);
    if (state.plans.length) {
      const first = state.firstPlan < state.plans.length ? state.firstPlan : 0;
      state.firstPlan = 0;  // later runs start at plan 1
      await Promise.all([selectPlan(first), uncertainty]);
    } else {
      await uncertainty;
      setState('done', answer.feasible === false ? 'No feasible plan.' : 'No plans returned.');
    }
    return null;
  }

  // Validate, EstimateMemory and EstimatePerformance for the form, then the pictures.
  async function runCheck(form) {
    const seq = ++state.planSeq;
    state.plotSeq++;
    const req = form.request;
    setState('loading', 'Checking the config…');
    $('plan-detail').hidden = true;
    const settle = (promise) => promise.then((value) => ({ ok: true, value }), (error) => ({ ok: false, error }));
    const [validate, memory, perf] = await Promise.all([
      settle(post('/v1/Validate', req)), settle(post('/v1/EstimateMemory', req)), settle(post('/v1/EstimatePerformance', req))]);
    if (seq !== state.planSeq) return;
    if (!validate.ok && !memory.ok && !perf.ok) {
      showError(validate.error, 'Check');
      $('check-results').hidden = true;
      return;
    }
    $('results').hidden = true;
    const shown = window.ParplanCheck.show(validate, memory, perf);
    const p = perf.ok ? perf.value : null;
    const rc = p && p.resolved_config;
    state.plans = [{
      label: 'your config',
      config: req.config,
      gpus: req.placement.gpus || (p && p.dp && rc ? p.dp * (rc.tp || 1) * (rc.cp || 1) * (rc.pp || 1) : undefined),
      reasons: p ? p.reasons : [],
    }];
    state.startingPoint = null;
    state.repair = shown.repair;
    if (!shown.drawable) {
      setState('done', 'The config breaks ' + (validate.ok ? validate.value.errors : 'some') + ' rule(s); see the rule cards.');
      return;
    }
    await selectPlan(0);
  }

  // Which plan the detail shows: "Plan 2", "Rule of thumb" or "Your config".
  function planName(plan, i) {
    if (Form.mode() === 'check') return 'Your config';
    return i < 0 ? 'Rule of thumb' : 'Plan ' + (plan.rank || i + 1);
  }

  // The plan's own notes above its pictures: cp_comm_type, the split it is
  // drawn for, and its warnings as rule cards (recommend mode; check mode
  // shows its rules above).
  function planNotes(plan, config) {
    const lines = [];
    const cp = Facts.cpCommType(config);
    if (cp) lines.push('cp_comm_type ' + cp + ' (CP=' + config.cp + ')');
    if (state.repair) lines.push('Drawn for the nearest valid split: ' + state.repair.change + '.');
    const box = $('plan-notes');
    box.textContent = '';
    for (const line of lines) box.appendChild(el('p', 'plan-note', line));
    box.hidden = !lines.length;
    const warnings = Form.mode() === 'check' ? [] : Facts.warnings(plan);
    window.ParplanRules.render($('plan-rules'), warnings, '');
  }

  // The resolved plan of the plan shown: Recommend's own for plan 1, else an
  // EstimatePerformance answer for the plan (check mode shows it above).
  async function planResolved(plan, i, placement, config, seq) {
    const box = $('plan-resolved');
    if (Form.mode() === 'check') {
      window.ParplanResolved.render(box, null);
      return;
    }
    const answer = state.answer || {};
    if (i === 0 && ((answer.resolved && answer.resolved.length) || answer.assumes)) {
      window.ParplanResolved.render(box, answer);
      return;
    }
    if (!plan._perf) {
      try {
        plan._perf = await post('/v1/EstimatePerformance', { model: state.request.model, placement, config });
      } catch (e) {
        plan._perf = {};
      }
    }
    if (seq === state.plotSeq) window.ParplanResolved.render(box, plan._perf);
  }

  // A plan /plot refused: when Validate says it breaks rules, its rule cards
  // take the pictures' place; otherwise the error is shown.
  async function refused(err, plan, i, placement, config, seq) {
    let v = null;
    if (err.status === 400 || err.code === 'INVALID_ARGUMENT') {
      try {
        v = await post('/v1/Validate', { model: state.request.model, placement, config });
      } catch (e) {
        v = null;
      }
    }
    if (seq !== state.plotSeq) return;
    const errors = v ? (v.violations || []).filter((x) => x.severity === 'error') : [];
    if (!errors.length) {
      showError(err, 'Plot');
      return;
    }
    $('plan-title').textContent = planName(plan, i) + ': ' + (plan.label || '') + ' breaks ' + errors.length + ' rule' + (errors.length === 1 ? '' : 's');
    $('plan-reasons').textContent = '';
    $('figures').hidden = true;
    $('plan-notes').hidden = true;
    if (Form.mode() === 'check') {
      $('plan-rules').hidden = true;  // its cards are in the check answer above
    } else {
      window.ParplanRules.render($('plan-rules'), v.violations, '');
    }
    $('plan-detail').hidden = Form.mode() === 'check';
    setState('done', planName(plan, i) + ' breaks ' + errors.length + ' rule(s); see the rule cards.');
  }

  // Selects plan `i` (-1: the rule-of-thumb starting point) and draws it
  // (POST /plot, with the rank map's groups); resolves when drawn or refused.
  async function selectPlan(i) {
    const plan = Plans.planAt(state, i);
    if (!plan || !state.request) return;
    state.selected = i;
    Plans.markRow(i);
    clearError();
    const seq = ++state.plotSeq;
    setState('loading', 'Drawing ' + planName(plan, i).toLowerCase() + '…');
    const placement = Plans.placementOf(state, plan);
    const config = (state.repair && state.repair.config) || plan.config || {};
    const groups = $('groups').value ? '?groups=' + encodeURIComponent($('groups').value) : '';
    let plot;
    try {
      [plot] = await Promise.all([
        post('/plot' + groups, { model: state.request.model, placement, config }),
        planResolved(plan, i, placement, config, seq)]);
    } catch (e) {
      if (seq === state.plotSeq) await refused(e, plan, i, placement, config, seq);
      return;
    }
    if (seq !== state.plotSeq) return;
    window.ParplanPictures.draw(planName(plan, i) + ': ' + (plot.title || plan.label || ''), plot, plan);
    planNotes(plan, config);
    $('plan-detail').hidden = false;
    if (Form.mode() === 'check') {
      setState('done', 'Checked; showing your config' + (state.repair ? ' with the nearest valid split.' : '.'));
    } else {
      setState('done', state.plans.length + ' plan' + (state.plans.length === 1 ? '' : 's') + '; showing ' + planName(plan, i).toLowerCase() + '.');
    }
  }

  let catalogLoaded = false;

  // Fills the model and system lists, then runs the plan the URL asks for.
  async function loadCatalog() {
    setState('loading', 'Loading models and systems…');
    let models;
    let systems;
    try {
      [models, systems] = await Promise.all([post('/v1/ListModels', {}), post('/v1/ListSystems', {})]);
    } catch (e) {
      showError(e, 'Loading models and systems');
      return;
    }
    clearError();
    Form.fillModels(models.models || []);
    Form.fillSystems(systems.systems || []);
    catalogLoaded = true;
    const url = Url.apply();
    state.firstPlan = url.plan;
    Form.systemPlaceholders();
    if (Form.showFieldErrors(url.errors)) return;
    if (url.run) {
      await run();
    } else {
      setState('done', Form.mode() === 'check' ? 'Enter a config, then Check.' : 'Pick a model, a system and a GPU count, then Plan.');
    }
  }

  // The MCP how-to names this server's own address.
  function mcpHowTo() {
    const url = window.location.origin + '/mcp';
    for (const e of document.querySelectorAll('.mcp-url')) e.textContent = url;
  }

  async function start() {
    $('plan-form').addEventListener('submit', (e) => {
      e.preventDefault();
      // A server with a token refuses the first catalog load: load it once
      // the token has been typed.
      if (catalogLoaded) run();
      else loadCatalog();
    });
    window.ParplanPictures.init();
    $('mode-recommend').addEventListener('click', () => Form.setMode('recommend'));
    $('mode-check').addEventListener('click', () => Form.setMode('check'));
    window.ParplanPaste.init();
    window.ParplanCompare.init();
    $('system').addEventListener('change', Form.systemPlaceholders);
    $('model').addEventListener('change', () => {
      if ($('model').value === Form.CUSTOM) $('custom-model').open = true;
    });
    $('groups').addEventListener('change', () => {
      Url.update();
      if (state.selected >= -1 && Plans.planAt(state, state.selected)) selectPlan(state.selected);
    });
    Form.build();
    $('s-gpu-arch').addEventListener('change', Form.systemPlaceholders);
    $('s-nvlink-domain').addEventListener('input', Form.systemPlaceholders);
    mcpHowTo();
    Form.setMode('recommend');
    await loadCatalog();
  }

  // For the "Start from what you run" panel (paste.js): Recommend from an imported plan.
  window.ParplanApp = { recommend };

  start();
})();
