/* The outbox (issue 15, "Offline"): moves entered without a network, kept in IndexedDB until they are
   sent. Shared by the page (offline.js, which shows and sends them) and the service worker (sw.js,
   which keeps a form post that failed on the way). One entry per move, oldest first:
     {seq, game, action, fields: [[name, value], ...], key, version, chained, words, state, refusal}
   key is the move's Idempotency-Key (the form's idempotency_key) and version the ETag of the table it
   was made on (the form's version, sent as If-Match). A move entered while others wait is "chained":
   it was made on the table as it will be after them, so its version is the one the move before it
   gets when it is applied (offline.js fills it in). state is "waiting", "refused" (refusal says why)
   or "held" (a move before it was refused: the table decides). */
(function (scope) {
  "use strict";
  var NAME = "referee-outbox";
  var STORE = "moves";

  function open() {
    return new Promise(function (resolve, reject) {
      var request = scope.indexedDB.open(NAME, 1);
      request.onupgradeneeded = function () {
        var store = request.result.createObjectStore(STORE, { keyPath: "seq", autoIncrement: true });
        store.createIndex("game", "game");
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  /* One transaction: work(store, out) queues the requests; resolves with out.value once committed. */
  function run(mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode);
        var out = {};
        work(tx.objectStore(STORE), out);
        tx.oncomplete = function () { db.close(); resolve(out.value); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error || new Error("outbox")); };
      });
    });
  }

  function ofGame(store, game, done) {
    var request = store.index("game").getAll(game);
    request.onsuccess = function () {
      done(request.result.sort(function (a, b) { return a.seq - b.seq; }));
    };
  }

  function freshKey() {
    var bytes = new Uint8Array(16);
    scope.crypto.getRandomValues(bytes);
    return "outbox-" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  scope.RefereeOutbox = {
    freshKey: freshKey,
    list: function (game) {
      return run("readonly", function (store, out) { ofGame(store, game, function (list) { out.value = list; }); });
    },
    /* Adds a move behind the game's others (in the same transaction that looks at them). */
    keep: function (entry) {
      return run("readwrite", function (store, out) {
        ofGame(store, entry.game, function (list) {
          entry.chained = list.some(function (e) { return e.state === "waiting"; });
          entry.state = "waiting";
          entry.refusal = null;
          entry.at = Date.now();
          var request = store.add(entry);
          request.onsuccess = function () { out.value = request.result; };
        });
      });
    },
    /* Removes the entries numbered in removed and stores the changed ones, all at once. */
    settle: function (removed, changed) {
      return run("readwrite", function (store) {
        removed.forEach(function (seq) { store.delete(seq); });
        changed.forEach(function (entry) { store.put(entry); });
      });
    }
  };
})(self);
