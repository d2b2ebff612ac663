// Loads one of the web page's plain scripts (server/web/*.js) the way the
// browser runs it, in a fresh Node vm context with an empty `window`, and
// returns the window.<name> it defines. For the Node tests of the page's
// DOM-free files (fields.js, plan_facts.js).
//   const F = require('./web_script.js')(path, 'ParplanFields');
'use strict';

const fs = require('fs');
const vm = require('vm');

module.exports = function loadWebScript(path, name) {
  const context = { window: {} };
  vm.createContext(context);
  vm.runInContext(fs.readFileSync(path, 'utf8'), context);
  return context.window[name];
};
