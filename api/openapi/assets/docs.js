// Mounts Scalar's API reference (window.Scalar, from the bundle loaded before this file) with the
// configuration the page carries as a JSON data block: no inline script, so the page's CSP needs none.
/* global window, document -- browser script, served as is (no build step) */
(function () {
  'use strict';
  var block = document.getElementById('docs-config');
  if (!block || !window.Scalar) return;
  window.Scalar.createApiReference('#app', JSON.parse(block.textContent));
})();
