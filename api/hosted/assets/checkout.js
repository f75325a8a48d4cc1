// Hosted payment page and embedded form. Plain browser JavaScript, no build step.
//
// Card details go from this page straight to the gateway's tokenization endpoint; our API only ever
// receives the token. Then the token is submitted as a payment attempt, and the page follows the
// attempt to its end: success, a decline (the customer may try again), a 3-D Secure challenge (the
// gateway sends the browser back here with `attempt=<n>`), or the intent ending (expired, canceled).
//
// Every word it shows comes from `config.text`, the page language's table (api/hosted/locales/), with
// `{name}` placeholders; amounts and names go into right-to-left text as bidi isolates.
/* global window, document, ResizeObserver -- browser script, served as is (no build step) */
(function () {
  'use strict';

  var configEl = document.getElementById('checkout-config');
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);
  var isEmbed = config.mode === 'embed';
  var text = config.text || {};
  var has = function (obj, key) { return !!obj && Object.prototype.hasOwnProperty.call(obj, key); };

  /** An entry of the language's table with its `{name}` placeholders filled in. */
  function t(key, vars) {
    var template = has(text, key) ? text[key] : key;
    return template.replace(/\{(\w+)\}/g, function (whole, name) { return vars && has(vars, name) ? String(vars[name]) : whole; });
  }

  /**
   * A value inside the page's text keeps its own order ("25.00 EUR" in Arabic) and cannot reorder the text around
   * it (a merchant's name with U+202E): first-strong isolate, as locale.ts isolate does.
   */
  function iso(value) {
    var sensitive = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(String(value));
    // The value's own embeddings, overrides and isolates go: a stray PDI in it would close ours early.
    return config.dir === 'rtl' || sensitive ? '\u2068' + String(value).replace(/[\u202A-\u202E\u2066-\u2069]/g, '') + '\u2069' : value;
  }

  /** English pages show our API's own message where there is one (as they always did); others the table's. */
  function apiText(message, key) {
    return config.lang === 'en' && message ? message : t(key);
  }

  var $ = function (id) { return document.getElementById(id); };
  var form = $('card-form');
  var payButton = $('pay-button');
  var payLabel = payButton ? payButton.querySelector('.pay-label') : null;
  var formError = $('form-error');
  var statusMessage = $('status-message');
  var paySection = $('pay-section');
  var outcome = $('outcome');
  var fields = {
    number: $('card-number'),
    expiry: $('card-expiry'),
    cvc: $('card-cvc'),
    name: $('card-name'),
  };
  // "Save this card for future payments": only on the page of an intent that offers it (config.offerSaveCard).
  var saveCard = config.offerSaveCard ? $('save-card') : null;

  // ---- embedded form: tell the merchant's page about size and outcome -------------------------------

  // The outcome carries nothing secret (status and a failure code), so any embedding page may read it.
  function notifyParent(message) {
    if (!isEmbed || window.parent === window) return;
    window.parent.postMessage(message, '*');
  }

  function reportHeight() {
    notifyParent({ type: 'payorch:resize', height: Math.ceil(document.documentElement.getBoundingClientRect().height) });
  }

  if (isEmbed) {
    if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(document.documentElement);
    window.addEventListener('load', reportHeight);
  }

  function announce(event) {
    var detail = { payment_intent: config.paymentIntent, status: event.status };
    if (event.failure_code) detail.failure_code = event.failure_code;
    notifyParent({ type: 'payorch:payment', detail: detail });
  }

  // A 3DS challenge opened in a popup from the embedded form comes back to the hosted page in that
  // popup. There the page only tells its opener (our own embedded form) and closes.
  var isChallengePopup = (function () {
    try {
      return !isEmbed && !!window.opener && window.opener.location.origin === window.location.origin && config.attempt !== null;
    } catch {
      return false; // a cross-origin opener (a merchant's window.open) is not ours
    }
  })();

  function tellOpener() {
    try {
      window.opener.postMessage({ type: 'payorch:challenge-done' }, window.location.origin);
    } catch {
      // the form that opened the popup is gone; it would have polled anyway
    }
  }

  // ---- small helpers ----------------------------------------------------------------------------

  function setStatus(text) {
    if (statusMessage) statusMessage.textContent = text;
  }

  function safeUrl(raw) {
    if (!raw) return null;
    try {
      var u = new URL(raw, window.location.href);
      return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
    } catch {
      return null;
    }
  }

  function failureText(code) {
    var reason = (code && has(config.failureReasons, code) && config.failureReasons[code]) || config.genericFailure;
    return t('failed', { reason: reason });
  }

  // Times are rendered in UTC on the server; show them in the customer's own time zone, with the date
  // when it is not today.
  Array.prototype.forEach.call(document.querySelectorAll('time[data-local-time]'), function (el) {
    var d = new Date(el.getAttribute('datetime'));
    if (isNaN(d.getTime())) return;
    var locale = config.dateLocale || [];
    var time = d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' });
    el.textContent = d.toDateString() === new Date().toDateString() ? time : d.toLocaleDateString(locale, { day: 'numeric', month: 'short' }) + ', ' + time;
  });

  // A merchant's line-item image that does not load leaves its empty frame rather than a broken picture.
  Array.prototype.forEach.call(document.querySelectorAll('.line-item-image img'), function (img) {
    function hide() { img.hidden = true; }
    if (img.complete && img.naturalWidth === 0) hide();
    else img.addEventListener('error', hide);
  });

  // ---- card input formatting and validation --------------------------------------------------------

  function digitsOf(s) {
    return (s || '').replace(/\D/g, '');
  }

  function brandOf(digits) {
    if (/^4/.test(digits)) return 'visa';
    if (/^3[47]/.test(digits)) return 'amex';
    var first4 = Number(digits.slice(0, 4));
    if (/^5[1-5]/.test(digits) || (first4 >= 2221 && first4 <= 2720)) return 'mastercard';
    return '';
  }

  function luhnValid(digits) {
    var sum = 0;
    var double = false;
    for (var i = digits.length - 1; i >= 0; i--) {
      var d = digits.charCodeAt(i) - 48;
      if (double) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      double = !double;
    }
    return sum % 10 === 0;
  }

  function formatCardNumber(digits) {
    // Amex is grouped 4-6-5, the others in fours.
    var groups = brandOf(digits) === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var i = 0;
    for (var g = 0; g < groups.length && i < digits.length; g++) {
      out.push(digits.slice(i, i + groups[g]));
      i += groups[g];
    }
    return out.join(' ');
  }

  function formatExpiry(digits) {
    if (digits.length >= 1 && digits[0] > '1') digits = '0' + digits; // "4" means April: "04"
    digits = digits.slice(0, 4);
    return digits.length > 2 ? digits.slice(0, 2) + ' / ' + digits.slice(2) : digits;
  }

  /**
   * Reformats an input in place. Typing at the end (the usual case) keeps the caret at the end, even when
   * the format adds characters ("4" becomes "04"); an edit in the middle keeps it after the same number
   * of digits.
   */
  function reformat(input, format, maxDigits) {
    var caret = input.selectionStart === null ? input.value.length : input.selectionStart;
    var atEnd = caret >= input.value.length;
    var digitsBeforeCaret = digitsOf(input.value.slice(0, caret)).length;
    var formatted = format(digitsOf(input.value).slice(0, maxDigits));
    if (formatted === input.value) return;
    input.value = formatted;
    var pos = 0;
    if (atEnd) pos = formatted.length;
    else {
      for (var seen = 0; pos < formatted.length && seen < digitsBeforeCaret; pos++) {
        if (/\d/.test(formatted[pos])) seen++;
      }
    }
    if (document.activeElement === input) input.setSelectionRange(pos, pos);
  }

  function parseExpiry(value) {
    var d = digitsOf(value);
    if (d.length !== 4) return null;
    return { month: Number(d.slice(0, 2)), year: 2000 + Number(d.slice(2)) };
  }

  var validators = {
    number: function () {
      var d = digitsOf(fields.number.value);
      if (!d) return t('enterCardNumber');
      if (d.length < 12 || d.length > 19 || !luhnValid(d)) return t('invalidCardNumber');
      return '';
    },
    expiry: function () {
      if (!fields.expiry.value.trim()) return t('enterExpiry');
      var e = parseExpiry(fields.expiry.value);
      if (!e || e.month < 1 || e.month > 12) return t('expiryFormat', { format: iso(t('expiryPlaceholder')) });
      var now = new Date();
      if (e.year * 12 + e.month - 1 < now.getFullYear() * 12 + now.getMonth()) return t('cardExpired');
      return '';
    },
    cvc: function () {
      var d = digitsOf(fields.cvc.value);
      var want = brandOf(digitsOf(fields.number.value)) === 'amex' ? 4 : 3;
      if (!d) return t('enterCvc');
      if (d.length !== want) return t('cvcDigits', { digits: want });
      return '';
    },
  };

  function setFieldError(key, message) {
    var input = fields[key];
    var el = $(input.id + '-error');
    if (el) el.textContent = message;
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }

  function validateField(key) {
    var message = validators[key]();
    setFieldError(key, message);
    return message;
  }

  function setFormError(message) {
    if (!formError) return;
    // Cleared first so the same message twice is announced twice.
    formError.textContent = '';
    if (message) {
      setTimeout(function () { formError.textContent = message; reportHeight(); }, 30);
    }
  }

  if (form) {
    fields.number.addEventListener('input', function () {
      var digits = digitsOf(fields.number.value);
      reformat(fields.number, formatCardNumber, brandOf(digits) === 'amex' ? 15 : 19);
      var brand = brandOf(digitsOf(fields.number.value));
      var badge = $('card-brand');
      badge.textContent = brand === 'mastercard' ? 'Mastercard' : brand;
      badge.className = 'card-brand' + (brand ? ' brand-' + brand : '');
      if (fields.number.getAttribute('aria-invalid')) validateField('number');
    });
    fields.expiry.addEventListener('input', function (e) {
      // Deleting the slash must not put it straight back.
      if (e.inputType === 'deleteContentBackward' && /\/\s*$/.test(fields.expiry.value)) {
        fields.expiry.value = fields.expiry.value.replace(/\s*\/\s*$/, '');
      }
      reformat(fields.expiry, formatExpiry, 4);
      if (fields.expiry.getAttribute('aria-invalid')) validateField('expiry');
    });
    fields.cvc.addEventListener('input', function () {
      reformat(fields.cvc, function (d) { return d; }, 4);
      if (fields.cvc.getAttribute('aria-invalid')) validateField('cvc');
    });
    // Checked when the customer moves on to another field. Not when focus goes to the Pay button: an
    // error appearing then would move the button under the pointer and swallow the click (the submit
    // checks every field anyway).
    ['number', 'expiry', 'cvc'].forEach(function (key) {
      fields[key].addEventListener('blur', function (e) {
        var next = e.relatedTarget;
        if (fields[key].value.trim() && next && next.tagName === 'INPUT') validateField(key);
      });
    });
    form.addEventListener('submit', onSubmit);
  }

  // ---- busy state -------------------------------------------------------------------------------

  var busy = false;

  function setBusy(on, label) {
    busy = on;
    if (!payButton) return;
    payButton.disabled = on;
    if (on) payButton.setAttribute('aria-busy', 'true');
    else payButton.removeAttribute('aria-busy');
    payLabel.textContent = on ? label || t('processing') : t('pay', { amount: iso(config.amountLabel) });
    ['number', 'expiry', 'cvc', 'name'].forEach(function (k) {
      if (fields[k]) fields[k].readOnly = on;
    });
    if (saveCard) saveCard.disabled = on; // a checkbox has no read-only state
  }

  // ---- outcome panel ----------------------------------------------------------------------------

  var ended = false;

  function showGiveUp() {
    var giveUp = $('give-up');
    if (giveUp && !isChallengePopup) giveUp.hidden = false;
  }

  function showOutcome(tone, title, message) {
    if (paySection) paySection.hidden = true;
    outcome.hidden = false;
    outcome.className = 'outcome tone-' + tone;
    $('outcome-title').textContent = title;
    $('outcome-message').textContent = message;
    $('outcome-redirect').textContent = '';
    $('outcome-link').hidden = true;
    outcome.focus();
    reportHeight();
  }

  function showProcessing() {
    var c = config.copy.processing;
    showOutcome('progress', c.title, c.message);
    setStatus(c.title);
  }

  /** Success, expiry or cancellation: the flow is over. */
  function finish(kind) {
    if (ended) return;
    ended = true;
    var c = config.copy[kind];
    if ($('pay-before')) $('pay-before').hidden = true;
    showOutcome(c.tone, c.title, c.message);
    setStatus(c.title);
    announce({ status: kind });
    if (isChallengePopup) {
      tellOpener();
      $('outcome-redirect').textContent = t('closeWindow');
      setTimeout(function () { window.close(); }, 1500);
      return;
    }
    if (isEmbed) return; // the merchant's page decides what happens next (payorch:payment event)
    // The merchant's return_url first, then (older intents) the final URL of this ending, else our result page.
    var merchantTarget = safeUrl(config.returnUrl) || safeUrl(kind === 'succeeded' ? config.finalSuccessUrl : config.finalFailureUrl);
    var target = merchantTarget || safeUrl(config.resultUrl);
    if (!target) return;
    var merchant = iso(config.merchantName);
    var link = $('outcome-link');
    link.href = target;
    link.textContent = merchantTarget ? t('returnTo', { merchant: merchant }) : t('continue');
    link.hidden = false;
    $('outcome-redirect').textContent = merchantTarget ? t('takingBack', { merchant: merchant }) : t('takingToReceipt');
    setTimeout(function () { window.location.assign(target); }, 2500);
  }

  /**
   * The attempt saved the card (`payment_method_uuid`): the success says so. The id stays on the outcome
   * panel as `data-payment-method`, on our own page only (the merchant's page hears the outcome alone).
   */
  function showCardSaved(paymentMethod) {
    var note = $('outcome-saved');
    if (!note) return;
    note.textContent = t('cardSaved');
    note.hidden = false;
    outcome.setAttribute('data-payment-method', String(paymentMethod));
  }

  /** A declined attempt: back to the form, with the reason, for another card. */
  function attemptFailed(code) {
    outcome.hidden = true;
    if (paySection) paySection.hidden = false;
    setBusy(false);
    var text = failureText(code);
    setStatus(''); // no longer "Processing your payment…": the form's alert says why it failed
    setFormError(text);
    announce({ status: 'failed', failure_code: code });
    showGiveUp(); // older intents: "Return to <merchant>" (final_failure_url) for a customer who gives up
    if (isChallengePopup) {
      tellOpener();
      showOutcome('failure', t('notCompleted'), text);
      $('outcome-redirect').textContent = t('closeWindow');
      setTimeout(function () { window.close(); }, 2500);
      return;
    }
    if (fields.number) {
      fields.number.select();
      fields.number.focus();
    }
  }

  /** The intent has had all its attempts: no form, and the way back to the merchant when there is one. */
  function attemptLimitReached() {
    var giveUp = $('give-up');
    var back = giveUp ? giveUp.querySelector('a') : null;
    showOutcome('neutral', t('notCompleted'), t('attemptLimit'));
    setStatus(t('attemptLimit'));
    if (back) {
      var link = $('outcome-link');
      link.href = back.href;
      link.textContent = back.textContent;
      link.hidden = false;
    }
  }

  // ---- talking to the gateway and our API -------------------------------------------------------

  function postJson(url, body, headers) {
    var h = { 'Content-Type': 'application/json', Accept: 'application/json' };
    for (var k in headers || {}) h[k] = headers[k];
    return fetch(url, { method: 'POST', headers: h, body: JSON.stringify(body), credentials: 'omit', cache: 'no-store' }).then(function (res) {
      return res.json().then(
        function (json) { return { status: res.status, json: json }; },
        function () { return { status: res.status, json: null }; },
      );
    });
  }

  function fetchStatus(attempt) {
    var url = config.statusUrl + (attempt ? '&attempt=' + encodeURIComponent(attempt) : '');
    return fetch(url, { headers: { Accept: 'application/json' }, credentials: 'omit', cache: 'no-store' }).then(function (res) {
      if (!res.ok) throw new Error('status ' + res.status);
      return res.json();
    });
  }

  var polling = null;
  var wake = null;

  // The 3DS popup says when it is done, so the next status check happens at once.
  window.addEventListener('message', function (e) {
    if (e.origin === window.location.origin && e.data && e.data.type === 'payorch:challenge-done' && wake) wake();
  });

  /** Asks for the outcome until it is known; never gives up while the page is open. */
  function pollOutcome(attempt) {
    if (polling) return polling;
    var started = Date.now();
    function tick() {
      return fetchStatus(attempt).then(
        function (s) {
          if (s.return_url !== undefined) config.returnUrl = s.return_url;
          switch (s.outcome) {
            case 'succeeded':
              // Back from a 3-D Secure challenge, the page learns of the saved card here, not from the attempt.
              if (s.payment_method_uuid) showCardSaved(s.payment_method_uuid);
              return finish(s.outcome);
            case 'expired':
            case 'canceled':
              return finish(s.outcome);
            case 'failed':
              return attemptFailed(s.failure_code);
            case 'open':
              outcome.hidden = true;
              if (paySection) paySection.hidden = false;
              setBusy(false);
              setStatus('');
              return;
            default:
              return wait();
          }
        },
        wait,
      );
    }
    function wait() {
      var elapsed = Date.now() - started;
      if (elapsed > 120000) $('outcome-message').textContent = t('bankSlow');
      return new Promise(function (resolve) {
        var t = setTimeout(resolve, elapsed < 20000 ? 1000 : 3000);
        wake = function () { clearTimeout(t); resolve(); };
      }).then(tick);
    }
    polling = tick().then(function () {
      polling = null;
      wake = null;
    });
    return polling;
  }

  function validateAll() {
    var firstInvalid = null;
    ['number', 'expiry', 'cvc'].forEach(function (key) {
      if (validateField(key) && !firstInvalid) firstInvalid = fields[key];
    });
    return firstInvalid;
  }

  var TOKEN_PARAM_FIELD = { number: 'number', exp_month: 'expiry', exp_year: 'expiry', cvc: 'cvc' };

  function onSubmit(e) {
    e.preventDefault();
    if (busy || ended) return;
    setFormError('');
    var invalid = validateAll();
    if (invalid) {
      invalid.focus();
      setFormError(t('checkHighlighted'));
      return;
    }
    var exp = parseExpiry(fields.expiry.value);
    setBusy(true);
    setStatus(t('processingPayment'));
    postJson(config.tokenUrl, {
      number: digitsOf(fields.number.value),
      exp_month: exp.month,
      exp_year: exp.year,
      cvc: digitsOf(fields.cvc.value),
    })
      .then(function (tok) {
        if (tok.status >= 400 || !tok.json || !tok.json.id) {
          var err = (tok.json && tok.json.error) || {};
          var field = TOKEN_PARAM_FIELD[err.param];
          setBusy(false);
          if (field) {
            setFieldError(field, apiText(err.message, 'checkValue')); // the gateway's message is in English
            fields[field].focus();
            setFormError(t('checkHighlighted'));
          } else {
            setFormError(t('cardCheckUnavailable'));
          }
          return;
        }
        var body = { token: tok.json.id };
        if (config.connector) body.connector = config.connector;
        // The billing pages save every card (config.alwaysSaveCard): a subscription charges it later.
        if ((saveCard && saveCard.checked) || config.alwaysSaveCard) body.save_payment_method = true;
        return postJson(config.attemptsUrl, body, { Authorization: 'Bearer ' + config.bearer }).then(onAttemptAnswer);
      })
      .catch(function () {
        setBusy(false);
        setFormError(t('unreachable'));
      });
  }

  function onAttemptAnswer(res) {
    var r = res.json || {};
    if (res.status === 200 || res.status === 201) {
      switch (r.status) {
        case 'success':
          if (r.payment_method_uuid) showCardSaved(r.payment_method_uuid);
          return finish('succeeded');
        case 'failed':
          return attemptFailed(r.failure_code);
        case 'requires_action':
          return challenge(r.next_action && r.next_action.url);
        case 'pending':
          showProcessing();
          return pollOutcome(null);
      }
    }
    if (res.status === 409 && r.error && r.error.code === 'checkout_session_cannot_complete') {
      // Refused before any charge: the checkout session could no longer start its subscription (its promotion
      // code used up, a plan archived, the session ended). Trying again would fail the same way.
      setBusy(false);
      setFormError(t('sessionCannotComplete'));
      return;
    }
    if (res.status === 409 && r.error && r.error.code === 'attempt_limit_reached') {
      // No attempt can succeed any more: the form goes, as on a page drawn after the limit.
      setBusy(false);
      attemptLimitReached();
      return;
    }
    if (res.status === 409) {
      // Not pending any more (paid in another tab, expired, canceled), or another attempt is running or being
      // checked with the gateway: the status check says which.
      showProcessing();
      return pollOutcome(null);
    }
    setBusy(false);
    setFormError(apiText(r.error && r.error.message, 'couldNotStart'));
  }

  /** 3-D Secure: the customer confirms with their bank on the gateway's page. */
  function challenge(rawUrl) {
    var url = safeUrl(rawUrl);
    if (!url) {
      setBusy(false);
      setFormError(failureText('processing_error'));
      return;
    }
    setStatus(t('redirectingToBank'));
    if (!isEmbed) {
      setBusy(true, t('redirectingToBank'));
      window.location.assign(url); // comes back here with attempt=<n>
      return;
    }
    // In a merchant's page we must not navigate it away: the challenge opens in a popup, from a click
    // (browsers only allow popups from a user gesture), and this form waits for the outcome.
    showOutcome('action', t('confirmTitle'), t('confirmMessage'));
    var link = $('outcome-link');
    link.href = url;
    link.textContent = t('openBankPage');
    link.hidden = false;
    link.onclick = function (ev) {
      ev.preventDefault();
      var popup = window.open(url, 'payorch-3ds', 'popup,width=480,height=720');
      if (!popup) {
        window.location.assign(url); // popups blocked: take the challenge in the frame instead
        return;
      }
      link.hidden = true;
      $('outcome-message').textContent = t('completeInWindow');
      pollOutcome(null);
    };
    link.focus();
  }

  // ---- start ------------------------------------------------------------------------------------

  if (payButton) payButton.disabled = false;

  if (config.outcome) {
    if (config.savedCard) showCardSaved(config.savedCard);
    finish(config.outcome);
  } else if (config.checking) {
    // A charge was in flight or being checked when the page was drawn (a reload, another tab): follow it.
    showProcessing();
    pollOutcome(null);
  } else if (config.attempt !== null) {
    // Back from the bank's page: follow that attempt to its end. The URL loses `attempt` so a reload
    // after a retry does not ask about an old attempt.
    showProcessing();
    if (!isChallengePopup && window.history && window.history.replaceState) {
      var u = new URL(window.location.href);
      u.searchParams.delete('attempt');
      window.history.replaceState(null, '', u.toString());
    }
    pollOutcome(config.attempt);
  }

  // The intent expires at a fixed time: check then, so a customer who waited sees it at once.
  // A charge on the wire wins over the clock, so while one runs its own answer comes first.
  function checkExpiry() {
    if (ended || polling) return;
    if (busy) {
      setTimeout(checkExpiry, 2000);
      return;
    }
    showProcessing();
    pollOutcome(null);
  }
  var msLeft = new Date(config.expiresAt).getTime() - Date.now();
  if (!config.outcome && msLeft < 2147483647) setTimeout(checkExpiry, Math.max(0, msLeft) + 1500);
})();
