// parplan's web page, formatting: numbers as the page prints them ("–" for
// a missing one), GiB, seconds, percentages, and small DOM helpers. Pure
// functions shared by app.js and check.js, no state.
//
// window.ParplanFormat = {
//   num(v)            -> Number, NaN for undefined / null / "" (int64 fields arrive as strings)
//   fmt(v, digits)    -> "1,187" (en-US grouping), "–" when not a number
//   gib(bytes)        -> "80.0", "–"
//   seconds(s)        -> "0.95 s" under 10 s, "55.2 s" above, "–"
//   pct(fraction)     -> "8.9%" under 10%, "23%" above
//   el(tag, class, text) -> a new element
//   fillList(ul, items)  -> replaces ul's items with one <li> per string
// }
'use strict';

(function () {
  const GiB = 1073741824;

  const num = (v) => (v === undefined || v === null || v === '' ? NaN : Number(v));

  function fmt(v, digits) {
    const n = num(v);
    return Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '–';
  }

  function gib(bytes) {
    const n = num(bytes);
    return Number.isFinite(n) ? (n / GiB).toFixed(1) : '–';
  }

  function seconds(s) {
    const n = num(s);
    if (!Number.isFinite(n)) return '–';
    return n < 10 ? n.toFixed(2) + ' s' : n.toFixed(1) + ' s';
  }

  // A DOM element with a class and text.
  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fillList(ul, items) {
    ul.textContent = '';
    for (const item of items || []) ul.appendChild(el('li', '', item));
  }

  const pct = (f) => (f * 100).toFixed(Math.abs(f) < 0.1 ? 1 : 0) + '%';

  window.ParplanFormat = { num, fmt, gib, seconds, pct, el, fillList };
})();
