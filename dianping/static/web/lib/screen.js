// The page area (<main id="app">) and which navigation owns it. The router counts
// navigations; a page paints only while its own navigation is still the current one.

export const app = () => document.getElementById("app");

let routeSeq = 0; // bumped by every navigation

export function navigated() {
  routeSeq += 1;
}

export function stillHere() {
  // Whether the navigation current now is still the current one when asked later.
  const seq = routeSeq;
  return () => seq === routeSeq;
}

export function screen() {
  // A page's own renderer: a page still loading when the user navigates away must not
  // paint over the page that replaced it. Call at the page's start, before any await.
  const here = stillHere();
  return (...nodes) => { if (here()) render(...nodes); };
}

function render(...nodes) {
  const root = app();
  root.replaceChildren(...nodes.flat().filter((node) => node !== null && node !== undefined && node !== false));
  window.scrollTo(0, 0);
  root.focus({ preventScroll: true }); // screen readers start at the new page
}
