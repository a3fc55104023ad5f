/* The pages offline (issue 15): registers the service worker (/sw.js), and on a game page keeps the
   moves entered without a network in the outbox (outbox.js) and sends them, in order, when the
   network returns (the online event, each page load, and a retry while it stays unreachable).

   Moves go to the page's own form endpoint (/g/<id>/move, with its CSRF token), asking for the
   verdict as JSON: one code path for moves, online or not. Each carries its own Idempotency-Key and
   the version of the table it was made on, so a retry never applies a move twice and a move made on
   a table that moved on is refused (412), never applied to it. A refusal holds the rest of the
   outbox until the table decides, move by move: send it on the table as it is now, or discard it.
   With the network up and nothing waiting, forms post as usual; if the post fails on the way, the
   service worker keeps it. No game rules live here; the words come from #texts (base.html). */
(function () {
  "use strict";
  var script = document.currentScript;
  var RETRY_MS = 15000;  /* the wifi is back but the server is not reachable yet: try again later */

  function text(key, values) {
    return window.RefereeText ? window.RefereeText(key, values) : key;
  }

  /* ---------------------------------------------------------------- the service worker */

  /* Asks the worker to keep this page if it has no copy of it yet (then it fetches it, once). */
  function keepIfMissing(worker) {
    if (worker) worker.postMessage({ type: "keep", url: window.location.href });
  }

  /* The kept copy with the parts of the table as it is now, in the place of its own: the server's
     HTML only (nothing this page's scripts added to the live page: outbox list, pads, banners). What
     the server shows once (a refusal, flashed notes, the announcement) is not shown again, as a
     fresh load of the page would not show it. */
  function withParts(html, shown) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var game = doc.getElementById("game");
    if (!game) return null;
    Object.keys(shown.parts).forEach(function (name) {
      var part = doc.getElementById(name);
      if (part && typeof shown.parts[name] === "string") {
        part.innerHTML = shown.parts[name];
        shown.fillSlots(part);  /* this phone's CSRF token and a fresh key, as in the live page */
      }
    });
    game.setAttribute("data-version", shown.version);
    game.setAttribute("data-revision", shown.revision);
    doc.querySelectorAll("#refused, main > p.note[role=status]").forEach(function (node) { node.remove(); });
    var announcer = doc.getElementById("announcer");
    if (announcer) announcer.setAttribute("data-announce", "");
    return "<!DOCTYPE html>\n" + doc.documentElement.outerHTML;
  }

  /* A game page's kept copy follows the table without a request (issue 36): each event of the
     page's stream brings the parts a move changes (app.js shows them and hands them on as
     "referee:parts"); they go into the kept copy, which the worker keeps in place of the old one.
     One copy is made at a time, from the newest parts: a burst of moves makes one or two. */
  function followTable(registration, game) {
    var key = window.location.origin + window.location.pathname;  /* the worker's key (sw.js, pageKey) */
    var newest = null;
    var making = false;
    function keepNewest() {
      if (making || !newest) return;
      var shown = newest;
      newest = null;
      making = true;
      window.caches.match(key, { ignoreVary: true })
        .then(function (kept) { return kept ? kept.text() : null; })
        .then(function (html) {
          var page = html && withParts(html, shown);
          if (page && registration.active) {
            registration.active.postMessage({ type: "keep-page", url: window.location.href, html: page,
                                              revision: Number(shown.revision) });
          }
        })
        .catch(function () { /* the kept copy stays as it was; the next move's event tries again */ })
        .then(function () { making = false; keepNewest(); });
    }
    game.addEventListener("referee:parts", function (e) {
      newest = { parts: e.detail.parts, fillSlots: e.detail.fillSlots,
                 version: game.getAttribute("data-version"), revision: game.getAttribute("data-revision") };
      keepNewest();
    });
  }

  function register() {
    if (!("serviceWorker" in navigator) || !script || !script.getAttribute("data-sw")) return;
    navigator.serviceWorker.register(script.getAttribute("data-sw"), { scope: script.getAttribute("data-scope") })
      .then(function () { return navigator.serviceWorker.ready; })
      .then(function (registration) {
        /* a visit that came before the worker (or while it started) is kept now */
        keepIfMissing(registration.active);
        /* a deploy's new worker starts with a new cache: the open page goes into it */
        navigator.serviceWorker.addEventListener("controllerchange", function () {
          keepIfMissing(navigator.serviceWorker.controller);
        });
        var game = document.getElementById("game");
        if (game && window.caches && window.DOMParser) followTable(registration, game);
      })
      .catch(function () { /* no worker (private mode, old browser): the pages work online as before */ });
  }

  /* ---------------------------------------------------------------- the outbox */

  function initOutbox(box) {
    var outbox = window.RefereeOutbox;
    if (!outbox || !window.indexedDB) return;
    var game = box.getAttribute("data-game");
    var moveUrl = box.getAttribute("data-move");
    var net = document.getElementById("outbox-net");
    var status = document.getElementById("outbox-status");
    var list = document.getElementById("outbox-list");
    var entries = [];
    var flushing = false;
    var retry = null;
    var FOCUS = "referee.outbox.focus";

    function isMove(form) {
      if (!form || form.tagName !== "FORM" || (form.method || "").toLowerCase() !== "post") return false;
      return new URL(form.action, window.location.href).pathname === moveUrl;
    }

    function clean(s) { return (s || "").replace(/\s+/g, " ").trim(); }

    function ownWords(label) {  /* a label's own words, without the text of the controls inside it */
      var words = [];
      label.childNodes.forEach(function (n) { if (n.nodeType === 3) words.push(n.textContent); });
      return clean(words.join(" "));
    }

    function labelOf(el) {
      var label = el.closest("label") || (el.labels && el.labels[0]);
      return label ? ownWords(label) : clean(el.getAttribute("aria-label"));
    }

    /* The move's words, from the form as the table filled it: its button, then each field's label
       and value ("Play the card: Who plays Ann, Rank 7, Suit ♥ H"). */
    function describe(form, submitter) {
      if (submitter && submitter.name && submitter.getAttribute("aria-label")) {
        return clean(submitter.getAttribute("aria-label"));  /* a key of a pad: it names the whole move */
      }
      var button = form.querySelector("button[type=submit], button:not([type])");
      var action = "";
      if (button) {
        var copy = button.cloneNode(true);
        copy.querySelectorAll("kbd").forEach(function (k) { k.remove(); });
        action = clean(copy.textContent);
      }
      var parts = [];
      Array.prototype.forEach.call(form.elements, function (el) {
        if (!el.name || el.disabled || el.type === "hidden" || el.type === "submit" || el.tagName === "BUTTON"
            || el.tagName === "FIELDSET" || el.closest("[hidden]")) return;
        if ((el.type === "radio" || el.type === "checkbox") && !el.checked) return;
        var label, value;
        if (el.type === "radio") {
          var legend = el.closest("fieldset") && el.closest("fieldset").querySelector("legend");
          label = legend ? clean(legend.textContent) : "";
          value = el.closest("label") ? clean(el.closest("label").textContent) : el.value;
        } else if (el.type === "checkbox") {
          label = "";
          value = labelOf(el) || el.name;
        } else if (el.tagName === "SELECT") {
          label = labelOf(el);
          value = el.selectedOptions.length ? clean(el.selectedOptions[0].textContent) : el.value;
        } else {
          label = labelOf(el);
          value = clean(el.value);
        }
        if (value) parts.push(label ? label + " " + value : value);
      });
      return parts.length ? text("outbox_words", { action: action, details: parts.join(", ") }) : action;
    }

    function fieldsOf(form, submitter) {
      var fields = [];
      var data = new FormData(form);
      /* the button tapped carries a value of its own (a card key): FormData(form) alone drops it */
      if (submitter && submitter.name) data.append(submitter.name, submitter.value);
      data.forEach(function (value, name) { if (typeof value === "string") fields.push([name, value]); });
      return fields;
    }

    /* Whether the form's field holds what the page put there (a hidden field, a select left at its
       preselected option), not a choice the table made. */
    function untouched(form, name) {
      var el = form.elements[name];
      if (!el) return false;
      if (el.type === "hidden") return true;
      if (el.tagName === "SELECT") {
        var chosen = el.options[el.selectedIndex];
        return !!chosen && chosen.defaultSelected;
      }
      return false;
    }

    function valueOf(fields, name) {
      var found = fields.filter(function (f) { return f[0] === name; })[0];
      return found ? found[1] : "";
    }

    function tableVersion() {
      var node = document.getElementById("game");
      return node ? node.getAttribute("data-version") || "" : "";
    }

    function remembered(key) {
      try { return window.sessionStorage.getItem(key); } catch (e) { return null; }
    }

    function forget(key) {
      try { window.sessionStorage.removeItem(key); } catch (e) { /* storage off */ }
    }

    /* The service worker keeps a failed post without its words (it has no page to read): the page
       noted them in sessionStorage under the move's key just before it posted. */
    function fillWords(found) {
      var changed = [];
      found.forEach(function (entry) {
        if (entry.words) return;
        var words = remembered("referee.words." + entry.key);
        entry.words = words || entry.fields.filter(function (f) {
          return ["csrf_token", "version", "idempotency_key"].indexOf(f[0]) < 0 && f[1];
        }).map(function (f) { return f[0] + " " + f[1]; }).join(", ");
        forget("referee.words." + entry.key);
        changed.push(entry);
      });
      return changed.length ? outbox.settle([], changed) : Promise.resolve();
    }

    function load() {
      return outbox.list(game).then(function (found) {
        return fillWords(found).then(function () { entries = found; render(); });
      });
    }

    function button(label, onClick) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", onClick);
      return b;
    }

    function paragraph(content, cls) {
      var p = document.createElement("p");
      if (cls) p.className = cls;
      if (typeof content === "string") p.textContent = content;
      else if (content) p.appendChild(content);
      return p;
    }

    /* The ruling badge the server rendered for the refusal (the same markup as the page's). */
    function badge(html) {
      var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
      var p = document.createElement("p");
      Array.prototype.slice.call(doc.body.firstChild.childNodes).forEach(function (n) {
        p.appendChild(document.importNode(n, true));
      });
      return p;
    }

    function item(entry, first) {
      var li = document.createElement("li");
      li.setAttribute("data-state", entry.state);
      li.setAttribute("data-seq", String(entry.seq));
      if (entry.state === "waiting") {
        li.className = "waiting";
        li.appendChild(paragraph(entry.words));
        return li;
      }
      var controls = paragraph(null, "row");
      var refusal = entry.refusal || {};
      if (entry.state === "refused") {
        li.className = "refused";
        li.tabIndex = -1;
        var head = paragraph(null);
        var strong = document.createElement("strong");
        strong.textContent = text("outbox_refused", { move: entry.words });
        head.appendChild(strong);
        if (refusal.status !== 412 && refusal.detail) head.appendChild(document.createTextNode(" " + refusal.detail));
        li.appendChild(head);
        if (refusal.badge) li.appendChild(badge(refusal.badge));
        li.appendChild(paragraph(text(refusal.status === 412 ? "outbox_stale" : "outbox_illegal")));
      } else {
        li.className = "held";
        li.appendChild(paragraph(entry.words));
        li.appendChild(paragraph(text("outbox_held"), "hint"));
      }
      if (first && (entry.state === "held" || refusal.status === 412)) {
        controls.appendChild(button(text("outbox_retry"), function () { resend(entry); }));
      }
      controls.appendChild(button(text("outbox_discard"), function () { discard(entry); }));
      li.appendChild(controls);
      return li;
    }

    function render() {
      var offline = navigator.onLine === false;
      var waiting = entries.filter(function (e) { return e.state === "waiting"; }).length;
      var blocked = entries.some(function (e) { return e.state !== "waiting"; });
      net.hidden = !offline;
      var words = waiting === 1 ? text("outbox_one") : waiting > 1 ? text("outbox_many", { count: waiting }) : "";
      if (blocked) words = (words ? words + " " : "") + text("outbox_blocked");
      if (status.textContent !== words) status.textContent = words;
      /* the list is drawn afresh: what had the focus in it keeps it */
      var active = document.activeElement;
      var focusSeq = null;
      var focusButton = -1;
      if (active && active !== list && list.contains(active)) {
        focusSeq = active.closest("li").getAttribute("data-seq");
        focusButton = Array.prototype.indexOf.call(active.closest("li").querySelectorAll("button"), active);
      }
      list.textContent = "";
      var first = true;
      entries.forEach(function (entry) {
        list.appendChild(item(entry, first && entry.state !== "waiting"));
        if (entry.state !== "waiting") first = false;
      });
      box.hidden = !offline && entries.length === 0;
      box.setAttribute("data-waiting", String(waiting));
      var again = focusSeq === null ? null : list.querySelector('li[data-seq="' + focusSeq + '"]');
      if (again) (again.querySelectorAll("button")[focusButton] || again).focus();
      if (remembered(FOCUS)) {  /* a refusal on return, after the reload: where the table looks first */
        forget(FOCUS);
        var refused = list.querySelector("li.refused");
        if (refused) refused.focus();
      }
    }

    function typing() {
      var el = document.activeElement;
      var moves = document.getElementById("moves");
      return !!(el && moves && moves.contains(el) && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)
                && !/^(radio|checkbox|button|submit)$/i.test(el.type || ""));
    }

    /* After sending: the table as it is now (and the flashed announcements of what was applied),
       unless the table is typing a move, which the page keeps (then it says the table changed). */
    function showTable(refused) {
      if (refused) {
        try { window.sessionStorage.setItem(FOCUS, "1"); } catch (e) { /* focus stays */ }
      }
      if (typing()) {
        var stale = document.getElementById("stale");
        if (stale) stale.hidden = false;
        return;
      }
      window.location.reload();
    }

    function send(entry) {
      var body = new URLSearchParams();
      entry.fields.forEach(function (f) {
        if (f[0] !== "idempotency_key" && f[0] !== "version") body.append(f[0], f[1]);
      });
      body.append("idempotency_key", entry.key);
      body.append("version", entry.version);
      return fetch(entry.action, { method: "POST", body: body, credentials: "same-origin", cache: "no-store",
                                   headers: { Accept: "application/json" } })
        .then(function (r) {
          if (r.status >= 500 || r.status === 429 || r.status === 408) return { sent: false };
          return r.json().then(function (data) {
            if (r.ok) return { sent: true, etag: String(data.etag) };
            return { sent: true, refusal: { status: r.status, title: data.title || "", detail: data.detail || "",
                                            rule: data.rule || null, badge: data.badge || "" } };
          }, function () { return { sent: false }; });  /* not the server's answer (a captive portal) */
        }, function () { return { sent: false }; });
    }

    /* Sends the waiting moves in order; stops at the first that is not waiting or not answered. */
    function flush() {
      if (flushing || navigator.onLine === false) return Promise.resolve();
      flushing = true;
      var applied = false;
      var refused = false;
      function next() {
        return outbox.list(game).then(function (found) {
          var entry = found[0];
          if (!entry || entry.state !== "waiting") return null;
          if (entry.chained || !entry.version) {
            /* made on a table that never came to be (the move before it went without an answer):
               never sent blind; the table decides */
            entry.state = "held";
            return outbox.settle([], [entry]);
          }
          return send(entry).then(function (outcome) {
            if (!outcome.sent) {
              if (retry === null) retry = window.setTimeout(function () { retry = null; flush(); }, RETRY_MS);
              return null;
            }
            if (outcome.refusal) {
              refused = true;
              entry.state = "refused";
              entry.refusal = outcome.refusal;
              var rest = found.slice(1).filter(function (e) { return e.state === "waiting"; });
              rest.forEach(function (e) { e.state = "held"; });
              return outbox.settle([], [entry].concat(rest));
            }
            applied = true;
            var after = found[1];
            var changed = [];
            if (after && after.state === "waiting" && after.chained) {
              after.version = outcome.etag;  /* the table it was made on now exists */
              after.chained = false;
              changed.push(after);
            }
            return outbox.settle([entry.seq], changed).then(next);
          });
        });
      }
      return next().catch(function () { /* storage failed: the moves stay kept */ }).then(function () {
        flushing = false;
        return load().then(function () { if (applied || refused) showTable(refused); });
      });
    }

    function resend(entry) {
      entry.state = "waiting";
      entry.refusal = null;
      entry.chained = false;
      entry.version = tableVersion();  /* the table decided: the move stands on the table as it is now */
      outbox.settle([], [entry]).then(load).then(flush);
    }

    function discard(entry) {
      outbox.settle([entry.seq], []).then(load).then(flush);
    }

    document.addEventListener("submit", function (e) {
      var form = e.target;
      if (!isMove(form)) return;
      var words = describe(form, e.submitter);
      if (navigator.onLine !== false && !entries.length) {
        /* posted as usual; should it fail on the way, the service worker keeps it without words */
        try { window.sessionStorage.setItem("referee.words." + valueOf(fieldsOf(form, e.submitter), "idempotency_key"), words); }
        catch (x) { /* the words are rebuilt from the fields */ }
        return;
      }
      e.preventDefault();
      var fields = fieldsOf(form, e.submitter);
      if (entries.some(function (x) { return x.state === "waiting"; }) && untouched(form, "player")) {
        /* queued after another move: the page's player to play is stale; left out, the player is
           whoever is to play when the move arrives (the service implies the player to play) */
        fields = fields.filter(function (f) { return f[0] !== "player"; });
      }
      outbox.keep({ game: game, action: moveUrl, fields: fields, key: outbox.freshKey(),
                    version: valueOf(fields, "version"), words: words })
        .then(function () {
          /* taken: the form starts afresh, as after a post (app.js resyncs its pads) */
          form.reset();
          Array.prototype.forEach.call(form.elements, function (el) {
            if (el.type === "text" || el.tagName === "TEXTAREA") el.dispatchEvent(new Event("input", { bubbles: true }));
          });
          return load();
        })
        .then(flush);
    });

    window.addEventListener("online", function () { render(); flush(); });
    window.addEventListener("offline", render);
    load().then(flush);
  }

  register();
  var box = document.getElementById("outbox");
  if (box) initOutbox(box);
})();
