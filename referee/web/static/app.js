/* Referee pages: live updates for followers, announcements, Ninety-nine keyboard shortcuts.
   Everything works without this script; it only adds comfort. No game rules live here. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  var announcer = null;
  function announce(text) {
    if (!announcer || !text) return;
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 60);
  }

  /* Value choices (a 10 or an A in Ninety-nine): show the group that goes with the chosen rank. */
  function syncValueGroups(root) {
    var groups = root.querySelectorAll("fieldset[data-rank]");
    if (!groups.length) return;
    var chosen = root.querySelector("input[name=rank]:checked");
    var rank = chosen ? chosen.value : null;
    groups.forEach(function (g) { g.hidden = g.getAttribute("data-rank") !== rank; });
  }

  function isTyping(el) {
    if (!el) return false;
    var tag = el.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable) return true;
    return tag === "INPUT" && !/^(radio|checkbox|button|submit)$/i.test(el.type);
  }

  /* Keyboard shortcuts, from the data the server wrote into #say. */
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    var say = document.getElementById("say");
    var key = e.key.toLowerCase();
    if (key === "c" && say) { announce(say.getAttribute("data-total")); e.preventDefault(); }
    else if (key === "s" && say) { announce(say.getAttribute("data-tokens")); e.preventDefault(); }
    else if (key === "p") {
      var form = document.getElementById("play-form");
      if (form) { e.preventDefault(); if (form.requestSubmit) form.requestSubmit(); else form.submit(); }
    }
  }

  /* Followers (and the table's other phones) see each move within about two seconds:
     poll the API with If-None-Match, and fetch the server-rendered parts on a change. */
  function startPolling(game) {
    var version = game.getAttribute("data-version");
    var api = game.getAttribute("data-api");
    var fragmentUrl = game.getAttribute("data-fragment");
    var dirty = false;
    var moves = document.getElementById("moves");
    if (moves) {
      moves.addEventListener("input", function () { dirty = true; });
      moves.addEventListener("change", function () { dirty = true; });
    }

    function busy() {
      return dirty || (moves && moves.contains(document.activeElement) && document.activeElement !== moves);
    }

    function refresh(newVersion) {
      return fetch(fragmentUrl, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var live = doc.querySelector("[data-part=live]");
          var newMoves = doc.querySelector("[data-part=moves]");
          var liveNow = document.getElementById("live");
          if (live && liveNow) liveNow.innerHTML = live.innerHTML;
          var scores = doc.querySelector("[data-part=scores]");
          var scoresNow = document.getElementById("scores");
          if (scores && scoresNow) scoresNow.innerHTML = scores.innerHTML;
          if (newMoves && moves) {
            if (busy()) document.getElementById("stale").hidden = false;
            else { moves.innerHTML = newMoves.innerHTML; syncValueGroups(moves); }
          }
          version = newVersion;
          game.setAttribute("data-version", version);
          var say = document.getElementById("say");
          if (say) announce(say.getAttribute("data-announce"));
        });
    }

    function poll() {
      fetch(api, { headers: { "If-None-Match": '"' + version + '"' }, cache: "no-store",
                   credentials: "same-origin" })
        .then(function (r) {
          if (r.status !== 200) return null;
          return r.json().then(function (body) {
            if (String(body.version) !== String(version)) return refresh(String(body.version));
            return null;
          });
        })
        .catch(function () { /* poor wifi: try again on the next tick */ })
        .then(function () { window.setTimeout(poll, document.hidden ? 5000 : 1200); });
    }
    window.setTimeout(poll, 1200);
  }

  document.addEventListener("DOMContentLoaded", function () {
    announcer = document.getElementById("announcer");
    if (announcer && announcer.getAttribute("data-announce")) {
      announce(announcer.getAttribute("data-announce"));
    }
    document.addEventListener("change", function (e) {
      if (e.target && e.target.name === "rank") syncValueGroups(e.target.form || document);
    });
    syncValueGroups(document);
    document.addEventListener("keydown", onKey);
    var refused = document.getElementById("refused");
    if (refused) refused.focus();
    var game = document.getElementById("game");
    if (game && game.getAttribute("data-api")) startPolling(game);
  });
})();
