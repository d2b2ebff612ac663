// parplan's web page, the calls to the server: POST JSON to /v1/<Method> or
// /plot with the bearer token when the server wants one, and the server's
// error object as an ApiError. No DOM besides the token field.
//
// window.ParplanApi = {
//   ApiError               -> Error with status, code and violations ({field, description})
//   post(path, body)       -> Promise of the parsed answer; rejects with an ApiError
//                             on a non-2xx status, a body that is not JSON or no server
// }
'use strict';

(function () {
  // An Error carrying the server's error object ({code, message, field_violations}).
  class ApiError extends Error {
    constructor(status, body) {
      const e = (body && body.error) || {};
      super(e.message || ('HTTP ' + status));
      this.status = status;
      this.code = e.code || ('HTTP_' + status);
      this.violations = Array.isArray(e.field_violations) ? e.field_violations : [];
    }
  }

  // The bearer token for servers started with one: typed into #token (shown
  // after the first 401) and kept for this tab only.
  function bearerToken() {
    const field = document.getElementById('token');
    if (field && field.value) sessionStorage.setItem('parplan-token', field.value);
    return sessionStorage.getItem('parplan-token') || '';
  }

  function askForToken() {
    sessionStorage.removeItem('parplan-token');
    const wrap = document.getElementById('token-field');
    if (wrap) wrap.hidden = false;
  }

  async function post(path, body) {
    let res;
    try {
      const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
      const token = bearerToken();
      if (token) headers.Authorization = 'Bearer ' + token;
      res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body || {}) });
    } catch (e) {
      throw new ApiError(0, { error: { code: 'UNAVAILABLE', message: 'cannot reach the server (' + e.message + ')' } });
    }
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : {};
    } catch (e) {
      json = null;
    }
    if (res.status === 401) askForToken();
    if (!res.ok) {
      throw new ApiError(res.status, json || { error: { message: 'HTTP ' + res.status + ': ' + text.slice(0, 300) } });
    }
    if (json === null) throw new ApiError(res.status, { error: { code: 'BAD_RESPONSE', message: 'the answer is not JSON' } });
    return json;
  }

  window.ParplanApi = { ApiError, post };
})();
