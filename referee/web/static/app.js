/* Referee pages: live updates for followers, announcements, keyboard shortcuts (read the total, the tokens), card pads.
   Everything works without this script; it only adds comfort. No game rules live here. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  /* The page's words, in the page's language: the JSON block #texts of base.html (the server
     translates it). To add a string, add it there and read it with text("key", {name: value}),
     which fills its {name} placeholders; an unknown key reads as the key itself. */
  var TEXTS = null;
  function text(key, values) {
    if (TEXTS === null) {
      var block = document.getElementById("texts");
      try { TEXTS = block ? JSON.parse(block.textContent) : {}; } catch (e) { TEXTS = {}; }
    }
    var words = Object.prototype.hasOwnProperty.call(TEXTS, key) ? String(TEXTS[key]) : key;
    return words.replace(/\{(\w+)\}/g, function (all, name) {
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all;
    });
  }
  window.RefereeText = text;  /* the other scripts' words (offline.js) */

  /* What this phone remembers (colours, keeping the screen on); storage may be off: then nothing is. */
  function remembered(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }
  function remember(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: not remembered */ }
  }

  /* Colours: "auto" follows the phone (prefers-color-scheme, in app.css); light or dark is set on
     <html> as data-theme. Applied as soon as the script runs, before the page is shown. */
  var THEME_KEY = "referee.theme";
  function applyTheme(theme) {
    if (theme === "light" || theme === "dark") document.documentElement.setAttribute("data-theme", theme);
    else document.documentElement.removeAttribute("data-theme");
  }
  applyTheme(remembered(THEME_KEY));

  function initThemeSwitch() {
    var select = document.getElementById("theme");
    if (!select) return;
    var theme = remembered(THEME_KEY);
    select.value = theme === "light" || theme === "dark" ? theme : "auto";
    select.hidden = false;
    select.addEventListener("change", function () {
      remember(THEME_KEY, select.value);
      applyTheme(select.value);
    });
  }

  /* Keeping the screen on while a game page is open (Screen Wake Lock API), unless switched off.
     The browser drops the lock when the page is hidden: it is asked for again on return. */
  var WAKE_KEY = "referee.wake";
  function initWakeLock() {
    var box = document.getElementById("wake");
    var input = document.getElementById("wake-switch");
    if (!box || !input || !document.getElementById("game")) return;
    if (!("wakeLock" in navigator) || !navigator.wakeLock || typeof navigator.wakeLock.request !== "function") return;
    var lock = null;
    var asking = false;
    input.checked = remembered(WAKE_KEY) !== "off";
    box.hidden = false;

    function state(value) { box.setAttribute("data-wake", value); }

    function release() {
      var held = lock;
      lock = null;
      if (held) {
        try { Promise.resolve(held.release()).catch(function () {}); } catch (e) { /* already gone */ }
      }
      state("off");
    }

    function request() {
      if (!input.checked || lock || asking || document.visibilityState !== "visible") return;
      asking = true;
      var asked;
      try { asked = Promise.resolve(navigator.wakeLock.request("screen")); }
      catch (e) { asked = Promise.reject(e); }
      asked.then(function (sentinel) {
        asking = false;
        if (!input.checked) {  /* switched off while asking */
          try { Promise.resolve(sentinel.release()).catch(function () {}); } catch (e) { /* gone */ }
          return;
        }
        lock = sentinel;
        state("on");
        if (sentinel && sentinel.addEventListener) {
          sentinel.addEventListener("release", function () {
            if (lock === sentinel) { lock = null; state("released"); }
          });
        }
      }, function () {
        asking = false;  /* refused (battery saver, not allowed): the screen sleeps as usual */
        state("refused");
      });
    }

    input.addEventListener("change", function () {
      remember(WAKE_KEY, input.checked ? "on" : "off");
      if (input.checked) request(); else release();
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") request();
    });
    request();
  }

  var announcer = null;
  function announce(text) {
    if (!announcer || !text) return;
    announcer.textContent = "";
    window.setTimeout(function () { announcer.textContent = text; }, 60);
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
  }

  /* Card pads: keys that type card codes into the field they sit under (text input: one list of
     codes; textarea: one list per line, the keys edit the line last put the caret on). The server
     decides which cards are offered and which exist once (those keys carry aria-pressed and
     toggle); this only edits the text. */
  function padField(pad) {
    var box = pad.closest("[data-padded]");
    return box ? box.querySelector("textarea, input[type=text]") : null;
  }

  function codesOf(text) { return text.replace(/,/g, " ").split(/\s+/).filter(Boolean); }

  function lineAt(text, pos) { return text.slice(0, pos).split("\n").length - 1; }

  function currentLine(field, lines) {
    var at = field.tagName === "TEXTAREA" ? field.getAttribute("data-line") : "0";
    var i = at === null ? lines.length - 1 : parseInt(at, 10);
    return Math.max(0, Math.min(isNaN(i) ? lines.length - 1 : i, lines.length - 1));
  }

  function syncPad(pad) {
    var field = padField(pad);
    if (!field) return;
    var present = {};
    codesOf(field.value).forEach(function (c) { present[c.toUpperCase()] = true; });
    pad.querySelectorAll("button[aria-pressed]").forEach(function (b) {
      b.setAttribute("aria-pressed", present[b.getAttribute("data-code").toUpperCase()] ? "true" : "false");
    });
  }

  function initPads(root) {
    root.querySelectorAll("[data-pad]").forEach(function (pad) {
      if (pad.hasAttribute("data-pad-grid")) { pad.hidden = false; markGridTarget(pad); return; }
      if (!padField(pad)) return;
      if (pad.hasAttribute("data-pad-copy")) {
        /* the same keys as the form's first pad, copied here rather than sent again */
        var form = pad.closest("form");
        var source = form && form.querySelector("[data-pad]:not([data-pad-copy])");
        if (!source) return;
        var tools = pad.querySelector(".pad-tools");
        source.querySelectorAll(".pad-row").forEach(function (row) {
          pad.insertBefore(row.cloneNode(true), tools);
        });
        pad.removeAttribute("data-pad-copy");
      }
      pad.hidden = false;
      syncPad(pad);
    });
  }

  /* Grid pads (Nines): a key fills the chosen cell of the form's grids, then the next empty one. */
  var chosenCell = null;

  function gridCells(pad) { return Array.prototype.slice.call(pad.closest("form").querySelectorAll(".gridin input")); }

  function gridTarget(pad) {
    var cells = gridCells(pad);
    if (chosenCell && cells.indexOf(chosenCell) >= 0) return chosenCell;
    return cells.filter(function (c) { return !c.value; })[0] || cells[0];
  }

  function markGridTarget(pad) {
    var target = gridTarget(pad);
    gridCells(pad).forEach(function (c) { c.classList.toggle("pad-target", c === target); });
  }

  function gridTap(pad, button) {
    var cells = gridCells(pad);
    var cell = gridTarget(pad);
    if (!cell) return;
    var code = button.getAttribute("data-code");
    var action = button.getAttribute("data-pad-do");
    if (code) {
      cell.value = code;
      var after = cells.slice(cells.indexOf(cell) + 1).filter(function (c) { return !c.value; });
      chosenCell = after[0] || cell;
    } else if (action === "back") {
      cell.value = "";
    } else if (action === "clear") {
      cells.forEach(function (c) { c.value = ""; });
      chosenCell = cells[0];
    } else {
      return;
    }
    cell.dispatchEvent(new Event("input", { bubbles: true }));
    markGridTarget(pad);
    announce(cell.getAttribute("aria-label") + ": " + (cell.value || text("empty")));
  }

  function noteGridCell(e) {
    var t = e.target;
    if (t && t.matches && t.matches(".gridin input")) {
      chosenCell = t;
      var pad = t.closest("form") && t.closest("form").querySelector("[data-pad-grid]");
      if (pad) markGridTarget(pad);
    }
  }

  function padTap(button) {
    var pad = button.closest("[data-pad]");
    if (pad && pad.hasAttribute("data-pad-grid")) { gridTap(pad, button); return; }
    var field = pad && padField(pad);
    if (!field) return;
    var multi = field.tagName === "TEXTAREA";
    var lines = multi ? field.value.split("\n") : [field.value];
    var i = currentLine(field, lines);
    var line = codesOf(lines[i]);
    var code = button.getAttribute("data-code");
    var action = button.getAttribute("data-pad-do");
    if (code && button.getAttribute("aria-pressed") === "true") {
      /* a card that exists once and is already listed: take it out, wherever it is */
      lines = lines.map(function (l) {
        var cs = codesOf(l);
        var n = cs.filter(function (c) { return c.toUpperCase() !== code.toUpperCase(); });
        return n.length === cs.length ? l : n.join(" ");
      });
    } else if (code) {
      line.push(code);
      lines[i] = line.join(" ");
    } else if (action === "back") {
      if (line.length) { line.pop(); lines[i] = line.join(" "); }
      else if (lines.length > 1) { lines.splice(i, 1); i = Math.max(0, i - 1); }
    } else if (action === "clear") {
      lines = [""]; i = 0;
    } else if (action === "line") {
      if (codesOf(lines[lines.length - 1]).length) lines.push("");
      i = lines.length - 1;
    } else {
      return;
    }
    field.value = multi ? lines.join("\n") : lines[0];
    if (multi) field.setAttribute("data-line", String(Math.min(i, lines.length - 1)));
    field.dispatchEvent(new Event("input", { bubbles: true }));
    var shown = Math.min(i, lines.length - 1);
    var label = multi ? text("line", { number: shown + 1, cards: lines[shown] || text("empty") })
                      : (field.value || text("empty"));
    announce(label);
  }

  function notePadLine(e) {
    var t = e.target;
    if (t && t.tagName === "TEXTAREA" && t.closest("[data-padded]")) {
      t.setAttribute("data-line", String(lineAt(t.value, t.selectionStart)));
    }
  }

  /* Followers (and the table's other phones) see each move as it happens: the page's event stream
     (/g/<id>/live) carries the parts of the page that change, rendered by the server as they are
     now, and the page swaps them in without asking for anything. Without EventSource, or when the
     stream keeps failing, it polls the API with If-None-Match and fetches the parts (the fragment)
     when the table changed. */
  var CSRF_SLOT = "{csrf}";  /* the shared parts' slots (referee/web/live.py) */
  var KEY_SLOT = "{key}";

  function freshKey() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function startFollowing(game) {
    var version = game.getAttribute("data-version");
    var api = game.getAttribute("data-api");
    var fragmentUrl = game.getAttribute("data-fragment");
    var csrf = game.getAttribute("data-csrf") || "";
    var dirty = false;
    var moves = document.getElementById("moves");
    if (moves) {
      moves.addEventListener("input", function () { dirty = true; });
      moves.addEventListener("change", function () { dirty = true; });
    }

    function busy() {
      return dirty || (moves && moves.contains(document.activeElement) && document.activeElement !== moves);
    }

    /* The stream's parts are the same for every phone of this kind: this phone's own CSRF token goes
       into their forms, and one fresh idempotency key (each form's is "<key>-<type>"). */
    function fillSlots(root) {
      var key = null;
      root.querySelectorAll("input[name=csrf_token]").forEach(function (input) {
        if (input.value === CSRF_SLOT) input.value = csrf;
      });
      root.querySelectorAll("input[name=idempotency_key]").forEach(function (input) {
        if (input.value.indexOf(KEY_SLOT) !== 0) return;
        key = key || freshKey();
        input.value = key + input.value.slice(KEY_SLOT.length);
      });
    }

    /* parts: the HTML of #live, #moves and #scores; a moves form being typed in stays (#stale says so) */
    function show(parts, newVersion) {
      [["live", parts.live], ["scores", parts.scores]].forEach(function (part) {
        var now = document.getElementById(part[0]);
        if (now && typeof part[1] === "string") { now.innerHTML = part[1]; fillSlots(now); }
      });
      if (moves && typeof parts.moves === "string") {
        if (busy()) document.getElementById("stale").hidden = false;
        else { moves.innerHTML = parts.moves; fillSlots(moves); initPads(moves); }
      }
      version = newVersion;
      game.setAttribute("data-version", version);
      /* the parts as the server sent them, for the copy kept for offline use (offline.js) */
      game.dispatchEvent(new CustomEvent("referee:parts", { detail: { parts: parts, fillSlots: fillSlots } }));
      var say = document.getElementById("say");
      if (say) announce(say.getAttribute("data-announce"));
    }

    function refresh(newVersion) {
      return fetch(fragmentUrl, { credentials: "same-origin", cache: "no-store" })
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var parts = {};
          ["live", "moves", "scores"].forEach(function (name) {
            var part = doc.querySelector("[data-part=" + name + "]");
            if (part) parts[name] = part.innerHTML;
          });
          show(parts, newVersion);
        });
    }

    function poll() {
      fetch(api, { headers: { "If-None-Match": '"' + version + '"' }, cache: "no-store",
                   credentials: "same-origin" })
        .then(function (r) {
          if (r.status !== 200) return null;
          return r.json().then(function (body) {
            if (String(body.etag) !== String(version)) return refresh(String(body.etag));
            return null;
          });
        })
        .catch(function () { /* poor wifi: try again on the next tick */ })
        .then(function () { window.setTimeout(poll, document.hidden ? 5000 : 1200); });
    }

    function stream(url) {
      var source = null;
      var failures = 0;
      function changed(e) {
        var data = JSON.parse(e.data);
        game.setAttribute("data-revision", String(data.revision));
        if (String(data.etag) !== String(version) && data.parts) show(data.parts, String(data.etag));
      }
      function open() {  /* from the last event this page got */
        var opened = new EventSource(url + "?last_event_id=" + encodeURIComponent(game.getAttribute("data-revision")));
        source = opened;
        ["move", "undo", "sync"].forEach(function (kind) { opened.addEventListener(kind, changed); });
        opened.addEventListener("open", function () { failures = 0; game.setAttribute("data-live", "stream"); });
        opened.addEventListener("error", function () {
          failures += 1;  /* the browser reconnects by itself (with Last-Event-ID); give up after a few */
          if (opened.readyState === EventSource.CLOSED || failures > 3) {
            opened.close();
            if (source === opened) source = null;
            game.setAttribute("data-live", "poll");
            window.setTimeout(poll, 1200);
          }
        });
      }
      /* A phone that knows it lost the network drops its stream (a dead connection can linger
         unnoticed) and opens another when the network is back, which catches up at once. */
      window.addEventListener("offline", function () {
        if (source) { source.close(); source = null; }
      });
      window.addEventListener("online", function () {
        if (!source && game.getAttribute("data-live") !== "poll") open();
      });
      open();
    }

    var live = game.getAttribute("data-stream");
    if (live && window.EventSource) stream(live);
    else { game.setAttribute("data-live", "poll"); window.setTimeout(poll, 1200); }
  }

  /* The language switch: a plain form (its button for phones without scripts); here it reloads as
     soon as another language is chosen. */
  function initLanguageSwitch() {
    var select = document.getElementById("lang");
    if (!select || !select.form) return;
    select.addEventListener("change", function () { select.form.submit(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    initThemeSwitch();
    initLanguageSwitch();
    initWakeLock();
    announcer = document.getElementById("announcer");
    if (announcer && announcer.getAttribute("data-announce")) {
      announce(announcer.getAttribute("data-announce"));
    }
    initPads(document);
    document.addEventListener("click", function (e) {
      var key = e.target && e.target.closest && e.target.closest("[data-pad] button");
      if (key) { e.preventDefault(); padTap(key); }
    });
    document.addEventListener("input", function (e) {
      var box = e.target && e.target.closest && e.target.closest("[data-padded]");
      var pad = box && box.querySelector("[data-pad]");
      if (pad) syncPad(pad);
    });
    ["keyup", "click", "focusin", "select"].forEach(function (type) {
      document.addEventListener(type, notePadLine);
    });
    document.addEventListener("focusin", noteGridCell);
    document.addEventListener("keydown", onKey);
    var refused = document.getElementById("refused");
    if (refused) {
      refused.focus();
      /* the fields the refusal points at (its legal, by field name): marked, so the table sees what to fix */
      (refused.getAttribute("data-faults") || "").split(" ").forEach(function (name) {
        if (!name) return;
        document.querySelectorAll("#moves [name='" + name + "']").forEach(function (el) {
          el.setAttribute("aria-invalid", "true");
          el.classList.add("fault");
        });
      });
    }
    var game = document.getElementById("game");
    if (game && game.getAttribute("data-api")) startFollowing(game);
  });
})();
