// parplan's web page, the pictures of one plan: the /plot answer's SVGs
// (rank map, memory per pipeline stage, step-time breakdown; made by our own
// server and inserted inline), its reasons, and the Megatron Bridge
// overrides with Python / CLI tabs and a Copy button.
//
// window.ParplanPictures = {
//   init()                    -> wires the override tabs and the Copy button (once)
//   draw(title, plot, plan)   -> fills #plan-detail from a /plot answer (plan: its fallbacks)
// }
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const { el, fillList } = window.ParplanFormat;
  const bridge = { python: '', cli: '', format: 'python' };

  // Inserts an SVG document string from our server into `box`.
  function putSvg(box, svgText) {
    box.textContent = '';
    if (!svgText) {
      box.appendChild(el('p', 'muted', 'no picture'));
      return;
    }
    const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
    const svg = doc.documentElement;
    if (!svg || svg.nodeName.toLowerCase() !== 'svg' || doc.getElementsByTagName('parsererror').length) {
      box.innerHTML = svgText;  // let the HTML parser try
      return;
    }
    box.appendChild(document.importNode(svg, true));
  }

  function showBridge(format) {
    bridge.format = format;
    $('bridge-python-tab').setAttribute('aria-pressed', String(format === 'python'));
    $('bridge-cli-tab').setAttribute('aria-pressed', String(format === 'cli'));
    $('bridge-overrides').textContent = bridge[format] || bridge.python || '';
  }

  function draw(title, plot, plan) {
    $('plan-title').textContent = title;
    fillList($('plan-reasons'), (plot.reasons && plot.reasons.length) ? plot.reasons : plan.reasons);
    putSvg($('rank-map'), plot.rank_map_svg);
    // A wide rank map (a summarised or a large world) gets the full width.
    const mapSvg = $('rank-map').querySelector('svg');
    document.querySelector('figure[aria-label="Rank map"]').classList.toggle('figure-wide', !!mapSvg && Number(mapSvg.getAttribute('width')) > 640);
    putSvg($('memory-chart'), plot.memory_svg);
    putSvg($('step-time'), plot.step_time_svg);
    bridge.python = plot.bridge_python || plan.bridge_overrides || '';
    bridge.cli = plot.bridge_cli || '';
    $('bridge-cli-tab').hidden = !bridge.cli;
    showBridge(bridge[bridge.format] ? bridge.format : 'python');
    $('figures').hidden = false;
  }

  // Copies `text`: the Clipboard API where allowed, else a hidden textarea.
  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      try {
        await navigator.clipboard.writeText(text);
        return true;
      } catch (e) {
        // fall through to the textarea
      }
    }
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.top = '-1000px';
    document.body.appendChild(ta);
    ta.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (e) {
      ok = false;
    }
    document.body.removeChild(ta);
    return ok;
  }

  function init() {
    $('bridge-python-tab').addEventListener('click', () => showBridge('python'));
    $('bridge-cli-tab').addEventListener('click', () => showBridge('cli'));
    $('copy-button').addEventListener('click', async () => {
      const ok = await copyText($('bridge-overrides').textContent);
      $('copy-button').textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => { $('copy-button').textContent = 'Copy'; }, 1500);
    });
  }

  window.ParplanPictures = { init, draw };
})();
