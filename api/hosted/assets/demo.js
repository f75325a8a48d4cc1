// The demo shop's own script: it listens for the embedded form's outcome, as a merchant's page would.
/* global document -- browser script, served as is (no build step) */
(function () {
  'use strict';
  var slot = document.getElementById('pay');
  var log = document.getElementById('event-log');
  if (!slot || !log) return;
  slot.addEventListener('payorch:payment', function (e) {
    var empty = log.querySelector('.empty');
    if (empty) empty.remove();
    var item = document.createElement('li');
    var name = document.createElement('code');
    name.textContent = 'payorch:payment';
    var detail = document.createElement('pre');
    detail.textContent = JSON.stringify(e.detail, null, 2);
    item.appendChild(name);
    item.appendChild(detail);
    log.appendChild(item);
    document.body.setAttribute('data-last-payment-status', e.detail.status);
  });
})();
