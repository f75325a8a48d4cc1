// Embedded payment form loader. A merchant adds, where the form should appear:
//
//   <div id="pay"></div>
//   <script src="https://<api>/js/v1/embed.js" data-publishable-key="pk_..."
//           data-payment-intent="pi_..." data-target="#pay"></script>
//
// Optional `data-lg="ar"` (en, fr, ar) shows the form in that language instead of the intent's.
//
// The form itself runs in an iframe on our origin, so card fields are never part of the merchant's page
// (its scripts cannot read them) and the merchant's page needs no change to its CSP beyond frame-src.
// The outcome reaches the merchant as a DOM event on the target element:
//
//   document.querySelector('#pay').addEventListener('payorch:payment', (e) => e.detail)
//   // { payment_intent, status: 'succeeded' | 'failed' | 'expired' | 'canceled', failure_code? }
//
// The event is a convenience for the page; the merchant's server confirms the outcome by retrieving
// the intent (or by webhook), since anything in a browser can be forged.
/* global window, document, CustomEvent -- browser script, served as is (no build step) */
(function () {
  'use strict';

  var script = document.currentScript;
  if (!script) return;
  var origin = new URL(script.src, window.location.href).origin;
  var key = script.getAttribute('data-publishable-key');
  var intent = script.getAttribute('data-payment-intent');
  var targetSelector = script.getAttribute('data-target');
  var lg = script.getAttribute('data-lg');

  function fail(message) {
    if (window.console) console.error('[payorch embed] ' + message);
  }

  if (!key || !intent || !targetSelector) {
    fail('data-publishable-key, data-payment-intent and data-target are required');
    return;
  }

  function mount() {
    var target = document.querySelector(targetSelector);
    if (!target) {
      fail('no element matches data-target "' + targetSelector + '"');
      return;
    }
    var iframe = document.createElement('iframe');
    iframe.src = origin + '/pay/' + encodeURIComponent(intent) + '/embed?key=' + encodeURIComponent(key) + (lg ? '&lg=' + encodeURIComponent(lg) : '');
    iframe.title = 'Secure payment form';
    iframe.setAttribute('allow', 'payment');
    iframe.setAttribute('referrerpolicy', 'origin');
    iframe.style.cssText = 'display:block;width:100%;min-width:280px;height:420px;border:0;background:transparent;color-scheme:light';
    target.appendChild(iframe);

    window.addEventListener('message', function (e) {
      // Only our own frame speaks for the payment.
      if (e.origin !== origin || e.source !== iframe.contentWindow || !e.data || typeof e.data.type !== 'string') return;
      if (e.data.type === 'payorch:resize' && typeof e.data.height === 'number' && e.data.height > 0) {
        iframe.style.height = Math.min(Math.ceil(e.data.height), 4000) + 'px';
      } else if (e.data.type === 'payorch:payment' && e.data.detail) {
        var detail = {
          payment_intent: String(e.data.detail.payment_intent),
          status: String(e.data.detail.status),
        };
        if (e.data.detail.failure_code) detail.failure_code = String(e.data.detail.failure_code);
        target.dispatchEvent(new CustomEvent('payorch:payment', { detail: detail, bubbles: true }));
      }
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount);
  else mount();
})();
