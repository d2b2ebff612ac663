// parplan's web page, rule cards: each violated (or noteworthy) rule as a
// card with its severity, rule id, message, the fields it names, the fix and
// the upstream check it follows. Errors and warnings are cards; notes (info)
// fold into one "N notes" box. Used for an invalid config in check mode, for
// a plan the server refuses to draw and for each plan's warnings.
//
// window.ParplanRules = {
//   render(box, violations, note) -> fills box (hides it when there is nothing);
//                                    note: a line above the cards ("" for none)
//   card(violation)               -> one card element
// }
'use strict';

(function () {
  const { el } = window.ParplanFormat;
  const BADGE = { error: 'badge-bad', warning: 'badge-warn', info: 'badge-info' };

  function card(v) {
    const severity = v.severity || 'info';
    const box = el('article', 'rule-card rule-card-' + severity);
    const head = el('div', 'rule-head');
    head.appendChild(el('span', 'badge ' + (BADGE[severity] || 'badge-info'), severity === 'info' ? 'note' : severity));
    if (v.rule) head.appendChild(el('code', 'rule-id', v.rule));
    box.appendChild(head);
    box.appendChild(el('p', 'rule-message', v.message || ''));
    if (v.fields && v.fields.length) box.appendChild(el('p', 'rule-fields muted', 'fields: ' + v.fields.join(', ')));
    if (v.fix) {
      const fix = el('p', 'rule-fix');
      fix.appendChild(el('strong', '', 'Fix: '));
      fix.appendChild(document.createTextNode(v.fix));
      box.appendChild(fix);
    }
    if (v.source) box.appendChild(el('p', 'rule-source muted', 'Source: ' + v.source));
    return box;
  }

  function render(box, violations, note) {
    box.textContent = '';
    const list = (violations || []).filter((v) => v);
    if (note) box.appendChild(el('p', 'rule-note', note));
    const cards = el('div', 'rule-cards');
    for (const v of list) if (v.severity === 'error' || v.severity === 'warning') cards.appendChild(card(v));
    if (cards.childNodes.length) box.appendChild(cards);
    const notes = list.filter((v) => v.severity !== 'error' && v.severity !== 'warning');
    if (notes.length) {
      const more = el('details', 'rule-notes');
      more.appendChild(el('summary', '', notes.length + ' note' + (notes.length === 1 ? '' : 's')));
      const inner = el('div', 'rule-cards');
      for (const v of notes) inner.appendChild(card(v));
      more.appendChild(inner);
      box.appendChild(more);
    }
    box.hidden = !list.length && !note;
  }

  window.ParplanRules = { render, card };
})();
