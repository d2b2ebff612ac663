// parplan's web page, its state for people and for headless tests: the
// status line, <body data-state> ("loading" | "done" | "error", mirrored on
// #status), the Plan button while a request is in flight, and the error box.
//
// window.ParplanStatus = {
//   setState(name, text)   -> sets the state and the status line
//   showError(err, what)   -> "<what> failed: CODE: message" and the field violations in #error; state "error"
//   clearError()
// }
'use strict';

(function () {
  const { el } = window.ParplanFormat;
  const $ = (id) => document.getElementById(id);

  function setState(name, text) {
    document.body.dataset.state = name;
    $('status').dataset.state = name;
    $('status').textContent = text || '';
    $('plan-button').disabled = name === 'loading';
  }

  function showError(err, what) {
    const box = $('error');
    box.textContent = '';
    box.appendChild(el('div', 'error-title', (what ? what + ' failed: ' : '') + (err.code ? err.code + ': ' : '') + err.message));
    if (err.violations && err.violations.length) {
      const ul = el('ul');
      for (const v of err.violations) {
        const li = el('li');
        li.appendChild(el('code', '', v.field || '(request)'));
        li.appendChild(document.createTextNode(' ' + (v.description || '')));
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
    box.hidden = false;
    setState('error', (what || 'Request') + ' failed.');
  }

  function clearError() {
    $('error').hidden = true;
    $('error').textContent = '';
  }

  window.ParplanStatus = { setState, showError, clearError };
})();
