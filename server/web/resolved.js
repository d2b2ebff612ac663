// parplan's web page, the resolved plan of an answer: the versions it
// assumes (`assumes`) and its settings (`resolved`: field, value, source,
// effect, why) as compact chips grouped by source (given, chosen by parplan,
// Megatron Bridge's default, ...), each setting that is not execution-only
// with a badge naming its class ("benchmark only: changes what training
// does"), and what parplan chose with its reason. An answer without these
// fields shows nothing.
//
// window.ParplanResolved = {
//   render(box, answer) -> fills box from answer.resolved / answer.assumes; hides it when both are absent
// }
'use strict';

(function () {
  const { el } = window.ParplanFormat;
  const Facts = window.ParplanFacts;

  // One setting: "field = value", its class badge, and its reason (inline
  // for what parplan chose, else in the tooltip).
  function chip(item, source) {
    const c = el('span', 'setting' + (item.badge ? ' setting-' + item.effect : ''));
    c.appendChild(el('code', '', item.field + ' = ' + item.value));
    if (item.badge) c.appendChild(el('span', 'badge effect-badge effect-' + item.effect, item.badge));
    if (item.why && source === 'parplan') c.appendChild(el('span', 'muted setting-why', '(' + item.why + ')'));
    if (item.why) c.title = item.why;
    return c;
  }

  function render(box, answer) {
    box.textContent = '';
    const groups = Facts.resolvedGroups(answer && answer.resolved);
    const assumes = answer && answer.assumes ? String(answer.assumes) : '';
    box.hidden = !groups.length && !assumes;
    if (box.hidden) return;
    const head = el('div', 'resolved-head');
    head.appendChild(el('h3', '', 'Resolved plan'));
    if (assumes) head.appendChild(el('span', 'muted resolved-assumes', 'assumes ' + assumes));
    box.appendChild(head);
    for (const g of groups) {
      const row = el('div', 'resolved-group resolved-' + g.source);
      row.appendChild(el('span', 'resolved-source', g.label));
      const chips = el('span', 'resolved-settings');
      for (const item of g.items) chips.appendChild(chip(item, g.source));
      row.appendChild(chips);
      box.appendChild(row);
    }
  }

  window.ParplanResolved = { render };
})();
