/* The service worker of the Referee pages (issue 15, "Offline"), served at /sw.js by referee/web/offline.py,
   which fills in the constants below. It keeps:
   - the app shell (styles, scripts, icons, manifest, the offline page), cache first;
   - the pages a phone opens (the home page, game pages, their logs, the rules): network first, the
     kept copy when the network fails, else the offline page; an open game page hands in its copy
     as its table changes (offline.js), so a move costs no fetch of the page;
   - a move whose form post fails on the way: in the outbox (outbox.js), then back to the game page,
     whose script (offline.js) shows it waiting and sends it when the network returns.
   Nothing else passes through it: the JSON API, the event stream and every other write go to the
   network as they would without it. Its cache is named after the web layer's digest: a deploy
   installs a new worker, which drops the old cache. */
"use strict";

const VERSION = {{ version | tojson }};
const CACHE = "referee-v-" + VERSION;
const ROOT = {{ root | tojson }};
const SHELL = {{ shell | tojson }};
const PRECACHE_PAGES = {{ pages | tojson }};
const OFFLINE = {{ offline | tojson }};
/* paths below ROOT, without its leading "/" */
const PAGES = /^(?:|g\/[^/]+|g\/[^/]+\/log|rules|rules\/[^/]+)$/;
const MOVE = /^g\/([^/]+)\/move$/;

importScripts({{ outbox | tojson }});

function local(pathname) {
  return pathname.startsWith(ROOT) ? pathname.slice(ROOT.length) : null;
}

function pageKey(url) {  /* one copy per page, whatever its query (?lang=) */
  return url.origin + url.pathname;
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL.concat([OFFLINE])).then(() =>
    Promise.all(PRECACHE_PAGES.map((page) => cache.add(page).catch(() => undefined))))
  ).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((keys) => Promise.all(
    keys.filter((key) => key.startsWith("referee-v-") && key !== CACHE).map((key) => caches.delete(key))
  )).then(() => self.clients.claim()));
});

async function keep(url, response) {
  if (response.ok && response.type === "basic" && !response.redirected) {
    const cache = await caches.open(CACHE);
    await cache.put(pageKey(url), response);
  }
}

async function page(event, url, path) {
  try {
    const response = await fetch(event.request);
    if (path !== null && PAGES.test(path)) event.waitUntil(keep(url, response.clone()));
    return response;
  } catch (error) {
    const cache = await caches.open(CACHE);
    const kept = await cache.match(pageKey(url), { ignoreVary: true });
    return kept || (await cache.match(OFFLINE, { ignoreVary: true })) || Response.error();
  }
}

async function shell(request) {
  const cache = await caches.open(CACHE);
  return (await cache.match(request, { ignoreVary: true })) || fetch(request);
}

/* A move form posted with the network gone: kept with the key the form carried (if the post did
   reach the server, sending it again replays the first answer instead of applying it twice) and the
   version the page showed; the page says it is waiting. */
async function postMove(request, url, gameId) {
  const copy = request.clone();
  try {
    return await fetch(request);
  } catch (error) {
    const form = await copy.formData();
    const fields = [];
    form.forEach((value, name) => { if (typeof value === "string") fields.push([name, value]); });
    const game = url.pathname.slice(0, -"/move".length);
    await self.RefereeOutbox.keep({
      game: decodeURIComponent(gameId), action: url.pathname, fields: fields,
      key: form.get("idempotency_key") || self.RefereeOutbox.freshKey(), version: form.get("version") || "",
      words: "",
    });
    return Response.redirect(game + "#moves", 303);
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  const path = local(url.pathname);
  if (request.method === "POST" && request.mode === "navigate") {
    const move = path === null ? null : MOVE.exec(path);
    if (move) event.respondWith(postMove(request, url, move[1]));
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate") event.respondWith(page(event, url, path));
  else if (SHELL.includes(url.pathname)) event.respondWith(shell(request));
});

/* A page with no copy yet (its visit came before this worker, or a deploy's worker started a new
   cache) asks to be kept: fetched once. */
async function keepMissing(url) {
  if (await (await caches.open(CACHE)).match(pageKey(url), { ignoreVary: true })) return;
  try {
    await keep(url, await fetch(url.pathname + url.search, { credentials: "same-origin", cache: "no-store" }));
  } catch (error) { /* no network: kept at its next visit */ }
}

const REVISION = /\bdata-revision="(\d+)"/;  /* the table a kept game page shows (game.html) */

/* A game page hands in its kept copy with the table as it is now, made from its stream's event
   (offline.js): kept without a request, with the headers of the copy it replaces, unless that copy
   shows a later table (a reload kept meanwhile). */
async function keepGiven(url, html, revision) {
  const cache = await caches.open(CACHE);
  const before = await cache.match(pageKey(url), { ignoreVary: true });
  if (!before) return;
  const shown = REVISION.exec(await before.text());
  if (!shown || Number(shown[1]) > revision) return;
  const headers = new Headers(before.headers);
  ["Content-Length", "Content-Encoding"].forEach((name) => headers.delete(name));  /* of the old body */
  await cache.put(pageKey(url), new Response(html, { status: 200, headers: headers }));
}

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if ((data.type !== "keep" && data.type !== "keep-page") || typeof data.url !== "string") return;
  const url = new URL(data.url, self.location.origin);
  const path = local(url.pathname);
  if (url.origin !== self.location.origin || path === null || !PAGES.test(path)) return;
  if (data.type === "keep") event.waitUntil(keepMissing(url));
  else if (typeof data.html === "string" && Number.isInteger(data.revision)) {
    event.waitUntil(keepGiven(url, data.html, data.revision));
  }
});
