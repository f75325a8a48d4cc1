// Billing portal: its forms (switch plan, cancel, undo a cancellation, update card) are sent as JSON, which
// is all our API takes, with the session's CSRF token each form carries. The answer names the page to show
// next (`redirect`, one of ours); a refusal is said next to the button. Plain browser JavaScript, no build step.
/* global window, document -- browser script, served as is (no build step) */
(function () {
  'use strict';

  var configEl = document.getElementById('portal-config');
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);

  // What the last action did is said at the top: move focus there so screen readers read it first.
  var notice = document.getElementById('portal-notice');
  if (notice) notice.focus();

  /** Only our own pages: a path on this origin, never `//host` or another scheme. */
  function ownPath(raw) {
    return typeof raw === 'string' && raw.charAt(0) === '/' && raw.charAt(1) !== '/' && raw.charAt(1) !== '\\' ? raw : null;
  }

  function send(form) {
    var button = form.querySelector('button[type="submit"]');
    var error = form.querySelector('[role="alert"]');
    var body = {};
    Array.prototype.forEach.call(form.querySelectorAll('input[name]'), function (input) {
      body[input.name] = input.value;
    });
    if (error) error.textContent = '';
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');

    function fail(message) {
      button.disabled = false;
      button.removeAttribute('aria-busy');
      // English pages show our API's own words where there are some; other languages the table's.
      if (error) error.textContent = (config.lang === 'en' && message) || config.failed;
      button.focus();
    }

    fetch(form.getAttribute('action'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    })
      .then(function (res) {
        return res.json().then(
          function (json) { return { status: res.status, json: json }; },
          function () { return { status: res.status, json: null }; },
        );
      })
      .then(function (r) {
        var next = r.status === 200 && r.json ? ownPath(r.json.redirect) : null;
        if (next) {
          window.location.assign(next);
          return;
        }
        fail(r.json && r.json.error && r.json.error.message);
      })
      .catch(function () { fail(null); });
  }

  Array.prototype.forEach.call(document.querySelectorAll('form[data-portal-action]'), function (form) {
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var button = form.querySelector('button[type="submit"]');
      if (!button || button.disabled) return;
      send(form);
    });
  });
})();
