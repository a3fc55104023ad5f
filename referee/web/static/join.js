/* The table link, /g/<id>/join#<code>: the code is in the fragment, which the browser never sends to
   the server. Take it out of the address bar (and so out of the history) at once, then post it once,
   with the form's CSRF token. Without this script the form takes the pasted link. */
(function () {
  "use strict";
  var sent = false;

  function take() {
    var hash = window.location.hash;
    if (!hash || hash.length < 2) return;
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    var form = document.getElementById("join-form");
    if (!form || sent) return;  /* this phone already keeps score here, or the code is on its way */
    var code = hash.slice(1);
    try { code = decodeURIComponent(code); } catch (e) { /* keep it as it is: the server checks it */ }
    form.elements.code.value = code;
    form.hidden = true;
    var joining = document.getElementById("joining");
    if (joining) joining.hidden = false;
    sent = true;
    form.submit();
  }

  take();
  /* the link opened on this very page (only the fragment changed): no new page load */
  window.addEventListener("hashchange", take);
})();
