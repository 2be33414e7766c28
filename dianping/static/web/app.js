// The Dianping web client: hash-routed pages over the project's own JSON API.
//
// Native ES modules, no build step: the browser loads this entry module, which imports
// the rest (lib/ for what every page uses, pages/ one module per area, router.js). It
// runs after Django's JavaScript catalog and the vendored QR code script, which
// index.html loads before it as classic scripts, so their globals are there.

import { renderCityChooser } from "./lib/city.js";
import { renderAccountLink } from "./lib/session.js";
import { watchBell } from "./pages/notifications.js";
import { route } from "./router.js";

function keepPageOnLanguageSwitch() {
  // The switch posts to Django's set_language, which answers with a redirect to `next`:
  // the page being read, hash included, so the reader stays where they were.
  const form = document.querySelector("form.language");
  form.addEventListener("submit", () => { form.elements.next.value = location.pathname + location.hash; });
}

watchBell();
window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", () => {
  keepPageOnLanguageSwitch();
  renderAccountLink();
  renderCityChooser(route).catch(() => null); // without the list, the default city's pages
  route();
});
